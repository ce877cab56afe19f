import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, badRequest, notFound } from '../../domain/errors.ts';
import { groupBy } from '../../lib/group-by.ts';
import { isUuid } from '../../lib/ids.ts';
import { coversOrganization } from '../access/index.ts';
import { checkAggregationAgainstLocks, checkChangesAgainstValues, planElements } from './forms.elements.ts';
import { presentForm } from './forms.present.ts';
import { formsRepository as repo } from './forms.repository.ts';
import type { Form, FormBody } from './forms.schemas.ts';

/** Every live form of the organization with its live elements (two queries). */
export async function listForms(tx: Tx, caller: Caller): Promise<Form[]> {
  const forms = await repo.list(tx, caller.organizationId);
  const elements = await repo.elements(
    tx,
    caller.organizationId,
    forms.map((f) => f.id),
  );
  const byForm = groupBy(elements, (e) => e.form_id);
  return forms.map((f) => presentForm(f, byForm.get(f.id) ?? []));
}

export async function getForm(tx: Tx, caller: Caller, id: string): Promise<Form> {
  const form = isUuid(id) ? await repo.find(tx, caller.organizationId, id) : undefined;
  if (!form) throw notFound('Form');
  return presentForm(form, await repo.elements(tx, caller.organizationId, [id]));
}

function fieldsOf(body: FormBody) {
  return {
    name: body.name,
    description: body.description ?? null,
    periodType: body.periodType,
    metadata: body.metadata ?? {},
    names: body.names ?? {},
    dueDays: body.dueDays ?? null,
  };
}

export const FORMS_ORGANIZATION_WIDE =
  'Forms apply to every site of the organization: only owners and managers of all its sites can create, change or delete them';

/**
 * A form (its elements, units, rules and the activity definitions its elements name) shapes the
 * figures of every site where it is active, so creating, changing and deleting one is for owners
 * and managers whose sites cover the whole organization (decision 166).
 */
async function authorizeOrganizationWide(tx: Tx, caller: Caller): Promise<void> {
  authorize(await coversOrganization(tx, caller), FORMS_ORGANIZATION_WIDE);
}

export async function createForm(tx: Tx, caller: Caller, body: FormBody): Promise<Form> {
  await authorizeOrganizationWide(tx, caller);
  const org = caller.organizationId;
  const plan = await planElements(tx, org, body.elements, []);
  if (plan.issues.length > 0) throw badRequest('Invalid form elements', plan.issues);
  const { id } = await repo.insert(tx, org, fieldsOf(body));
  await repo.upsertElements(tx, org, id, plan.rows);
  return getForm(tx, caller, id);
}

/**
 * Replaces a form's fields and element list: elements are matched by id or key, new ones
 * are added, and the live ones left out are soft-deleted (their values are kept).
 */
export async function updateForm(tx: Tx, caller: Caller, id: string, body: FormBody): Promise<Form> {
  await authorizeOrganizationWide(tx, caller);
  const org = caller.organizationId;
  const form = isUuid(id) ? await repo.find(tx, org, id, 'update') : undefined;
  if (!form) throw notFound('Form');
  const stored = await repo.elements(tx, org, [id], true);
  const plan = await planElements(tx, org, body.elements, stored);
  if (plan.issues.length > 0) throw badRequest('Invalid form elements', plan.issues);
  const issues = await checkChangesAgainstValues(tx, org, plan, stored, form.period_type !== body.periodType);
  if (issues.length > 0) throw badRequest('The change would invalidate stored values', issues);
  const lockIssues = await checkAggregationAgainstLocks(tx, org, id, plan);
  if (lockIssues.length > 0) throw badRequest('The period is locked', lockIssues);

  await repo.softDeleteElementsExcept(tx, org, id, [...plan.matched.keys()]);
  const renamed = plan.rows.filter((r) => {
    const before = plan.matched.get(r.id);
    return before !== undefined && before.key !== r.key;
  });
  await repo.parkKeys(
    tx,
    org,
    renamed.map((r) => r.id),
  );
  await repo.upsertElements(tx, org, id, plan.rows);
  await repo.update(tx, org, id, fieldsOf(body));
  return getForm(tx, caller, id);
}

/** Soft-deletes a form: it leaves the API, its elements, form-sites and values stay stored. */
export async function deleteForm(tx: Tx, caller: Caller, id: string): Promise<void> {
  await authorizeOrganizationWide(tx, caller);
  if (!isUuid(id) || !(await repo.softDelete(tx, caller.organizationId, id))) throw notFound('Form');
}
