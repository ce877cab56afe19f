import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { AppError, coded, invalidField, notFound } from '../../domain/errors.ts';
import { pageOf, paginationOf } from '../../http/paging.ts';
import { groupBy } from '../../lib/group-by.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, siteScope } from '../access/index.ts';
import { forms as formsRepository } from '../forms/index.ts';
import { liveValuesOf, presentValue, type Submission, type ValueItem } from '../values/index.ts';
import { presentSubmission, type SubmissionRow } from './submissions.present.ts';
import { submissionsRepository as repo } from './submissions.repository.ts';
import type { SubmissionsQuery } from './submissions.schemas.ts';

/** Submissions with all their current values (one query for the values of all of them). */
async function withValues(tx: Tx, organizationId: string, rows: SubmissionRow[]): Promise<Submission[]> {
  const values = await liveValuesOf(
    tx,
    organizationId,
    rows.map((r) => r.id),
  );
  const bySubmission = groupBy(
    values,
    (v) => v.form_submission_id,
    (v): ValueItem =>
      presentValue(v, v.element_key, { name: v.user_name, email: v.user_email, image: v.user_image }),
  );
  return rows.map((r) => presentSubmission(r, bySubmission.get(r.id) ?? []));
}

/** A submission of an active form-site on a site the caller can read. */
export async function getSubmission(tx: Tx, caller: Caller, id: string): Promise<Submission> {
  const row = isUuid(id) ? await repo.findSubmission(tx, caller.organizationId, id) : undefined;
  if (!row || !policy.canReadSite(await siteScope(tx, caller), row.site_id)) throw notFound('Submission');
  const [submission] = await withValues(tx, caller.organizationId, [row]);
  return submission!;
}

/** A page of visible submissions on the sites the caller can read. */
export async function listSubmissions(tx: Tx, caller: Caller, query: SubmissionsQuery) {
  const org = caller.organizationId;
  const unknownForm = async () => query.formId && !(await formsRepository.find(tx, org, query.formId));
  // A form that matches nothing is checked after the page (a page found proves the form exists);
  // a site is checked first, as its refusal (400 unknown, 403 unreadable) comes before any page.
  let siteName = '';
  if (query.siteId) {
    if (await unknownForm()) throw invalidField('formId', 'formId is not a form of this organization');
    const site = await repo.siteExists(tx, org, query.siteId);
    if (!site) throw invalidField('siteId', 'siteId is not a site of this organization');
    siteName = site.name;
  }
  const scope = await siteScope(tx, caller);
  // As GET /activities: naming a site the caller cannot read is a 403, not an empty page.
  if (query.siteId && !policy.canReadSite(scope, query.siteId.toLowerCase())) {
    const message = `You cannot read the data of ${siteName}`;
    throw new AppError('FORBIDDEN', message, [coded('site.outOfScope', message, { site: siteName })]);
  }
  const page = pageOf(query);
  const { total, rows } = await repo.listSubmissions(tx, org, scope, query, page);
  if (total === 0 && !query.siteId && (await unknownForm())) {
    throw invalidField('formId', 'formId is not a form of this organization');
  }
  return {
    items: rows.map((r) =>
      presentSubmission(
        r,
        r.values.map((v) =>
          presentValue(
            {
              id: v.value_id!,
              element_id: v.element_id!,
              period_unit: v.period_unit!,
              timestamp: v.timestamp,
              value: v.value,
              original_value: v.original_value,
              selected_unit_id: v.selected_unit_id,
              status: v.status!,
              user_id: v.value_user_id!,
              recorded_at: v.recorded_at!,
              deleted_at: v.deleted_at,
            },
            v.element_key!,
            { name: v.user_name!, email: v.user_email!, image: v.user_image },
          ),
        ),
      ),
    ),
    pagination: paginationOf(page, rows.length, total),
  };
}
