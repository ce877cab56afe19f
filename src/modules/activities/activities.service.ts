import { isDeepStrictEqual } from 'node:util';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, badRequest, forbidden, invalidField, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { pageOf, paginationOf } from '../../http/paging.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, siteScope } from '../access/index.ts';
import { getDefinitionForCalculation } from '../activity-definitions/index.ts';
import { LAST_PERIOD } from '../completeness/index.ts';
import { type SlotGuard, snapshotOf, type TenantRun, writeValues } from '../values/index.ts';
import {
  type CalcLimits,
  CalcSession,
  calculateThenWrite,
  failed,
  failureMessage,
} from './activities.calculate.ts';
import { checkActivityInput } from './activities.inputs.ts';
import { type ActivitySnapshot, activitiesRepository as repo } from './activities.repository.ts';
import type {
  ActivitiesQuery,
  ActivityPage,
  PatchActivityBody,
  PatchActivityResult,
} from './activities.schemas.ts';
import { listingRepository } from './listing.repository.ts';

/** The items of a list parameter sent comma-separated, repeated, or both; null when absent. */
function listItems(values: (string | number)[] | undefined, name: string): string[] | null {
  if (values === undefined) return null;
  const items = values.flatMap((v) => String(v).split(',')).map((v) => v.trim());
  if (items.some((v) => v === '')) throw invalidField(name, `${name} has an empty item`);
  if (items.length === 0) throw invalidField(name, `${name} names nothing`);
  return [...new Set(items)];
}

function integers(values: string[] | null, name: string, min: number, max: number): number[] | null {
  if (!values) return null;
  return values.map((v) => {
    const n = /^-?\d{1,9}$/.test(v) ? Number(v) : Number.NaN;
    if (!(n >= min && n <= max)) throw invalidField(name, `${name}: "${v}" is not an integer ${min}..${max}`);
    return n;
  });
}

/** The result of checking a list parameter: its items, or the refusal to throw (in order). */
type Checked<T> = { items: T | null } | { error: unknown };

function attempt<T>(check: () => T | null): Checked<T> {
  try {
    return { items: check() };
  } catch (error) {
    return { error };
  }
}

const itemsOf = <T>(checked: Checked<T>): T | null => ('items' in checked ? checked.items : null);

/**
 * A page of the activities of one ACTIVITY element (form + key) on the sites the caller can
 * read, with the no-activity markers matching the same filters. Sites named in `siteIds` must
 * be the organization's (400) and readable by the caller (403).
 *
 * One statement reads everything (the form, the element, which named sites exist, the page and
 * the markers); the parameters are checked before it and refused after it, in the order a
 * request's problems are reported: the form (404), the element (404, or 400 for another type),
 * then siteIds, years and periodUnits (400), then the sites named (400 unknown, 403 unreadable).
 */
export async function listActivities(tx: Tx, caller: Caller, query: ActivitiesQuery): Promise<ActivityPage> {
  const org = caller.organizationId;
  const siteList = attempt(() => listItems(query.siteIds, 'siteIds')?.map((s) => s.toLowerCase()) ?? null);
  const years = attempt(() => integers(listItems(query.years, 'years'), 'years', 1900, 2200));
  // The range of a period depends on the form's period type: checked once the form is known.
  const periodList = attempt(() => listItems(query.periodUnits, 'periodUnits'));
  const loosePeriods = attempt(() => integers(itemsOf(periodList), 'periodUnits', 1, 12));
  const siteIds = itemsOf(siteList);
  const wellFormed = siteIds?.filter((id) => isUuid(id)) ?? [];
  const scope = await siteScope(tx, caller);

  const filtersUsable =
    'items' in years && 'items' in loosePeriods && wellFormed.length === (siteIds?.length ?? 0);
  const page = pageOf(query);
  const found = await listingRepository.list(
    tx,
    org,
    {
      formId: isUuid(query.formId) ? query.formId : '00000000-0000-0000-0000-000000000000',
      key: query.key,
      namedSiteIds: wellFormed,
      siteIds: filtersUsable ? siteIds : null,
      years: filtersUsable ? itemsOf(years) : null,
      periodUnits: filtersUsable ? itemsOf(loosePeriods) : null,
      scope,
    },
    page,
  );

  if (!found.form) throw notFound('Form');
  if (!found.element) throw notFound(`Element "${query.key}" of the form`);
  if (found.element.type !== 'ACTIVITY') {
    throw invalidField(
      'key',
      `key "${query.key}" names a ${found.element.type} element, not an ACTIVITY element`,
    );
  }
  for (const checked of [siteList, years, periodList]) if ('error' in checked) throw checked.error;
  integers(itemsOf(periodList), 'periodUnits', 1, LAST_PERIOD[found.form.periodType]);
  if (siteIds) {
    const malformed = siteIds.find((id) => !isUuid(id));
    if (malformed) throw invalidField('siteIds', `siteIds: "${malformed}" is not a site id (UUID)`);
    const unknown = siteIds.find((id) => !found.knownSiteIds.has(id));
    if (unknown) throw invalidField('siteIds', `siteIds: ${unknown} is not a site of this organization`);
    const hidden = siteIds.find((id) => !policy.canReadSite(scope, id));
    if (hidden) throw forbidden(`You cannot read the data of site ${hidden}`);
  }

  const unit = found.element.unit;
  return {
    activities: found.rows.map((r) => ({
      activityId: r.id,
      formElementSubmissionId: r.form_element_submission_id,
      input: r.input,
      value: r.value,
      unit,
      siteId: r.site_id,
      siteName: r.site_name,
      year: r.year,
      periodUnit: r.period_unit,
      metadata: r.metadata,
    })),
    noActivity: found.markers.map((m) => ({
      id: m.id,
      siteId: m.site_id,
      siteName: m.site_name,
      year: m.year,
      periodUnit: m.period_unit,
      createdAt: iso(m.created_at),
    })),
    pagination: paginationOf(page, found.rows.length, found.total),
  };
}

/** What the activities module's write paths get from the composition root. */
export interface ActivitiesDeps {
  /** Run before any write that changes stored values or activities. */
  guards: readonly SlotGuard[];
  limits: CalcLimits;
}

/**
 * Changes some input fields of an activity (COLLECTOR+ on its site) and calculates it again with
 * the definition it was calculated with. The value holding the activity gets the new list of
 * inputs, becomes COMPLETED again and records the change in its history, as does the activity.
 * An input that changes nothing writes nothing. The calculation runs with no transaction held;
 * the write transaction checks that the activity, definition and coefficients are unchanged.
 */
export async function patchActivity(
  deps: ActivitiesDeps,
  run: TenantRun,
  caller: Caller,
  id: string,
  body: PatchActivityBody,
  signal: AbortSignal = new AbortController().signal,
): Promise<PatchActivityResult> {
  const org = caller.organizationId;
  const session = new CalcSession(org, run, signal, deps.limits);
  try {
    return await calculateThenWrite<PatchActivityResult>(session, run, async (tx) => {
      const row = isUuid(id) ? await repo.findForUpdate(tx, org, id) : undefined;
      const scope = await siteScope(tx, caller);
      if (!row || !policy.canReadSite(scope, row.site_id)) throw notFound('Activity');
      authorize(policy.canWriteSiteData(caller, scope, row.site_id), 'You cannot enter data for this site');

      const definition = await getDefinitionForCalculation(tx, org, row.activity_definition_id);
      if (!definition) {
        throw badRequest('The activity’s definition is no longer available', [
          {
            path: 'input',
            message: 'The activity definition this activity was calculated with is no longer available',
          },
        ]);
      }
      const checked = checkActivityInput(definition.inputs, { ...row.input, ...body.input }, 'input');
      if ('issues' in checked) throw badRequest('Invalid input data', checked.issues);
      const site = { id: row.site_id, name: row.site_name, metadata: row.site_metadata };
      const job = {
        source: definition,
        input: checked.input,
        context: { year: row.year, periodUnit: row.period_unit, site },
      };
      const [outcome] = session.outcomes([job]);
      if (!outcome || !(await session.verify(tx))) return { jobs: [job] };
      if (failed(outcome)) {
        throw badRequest('The activity calculation failed', [
          { path: 'input', message: `input: ${failureMessage(outcome)}` },
        ]);
      }
      const before: ActivitySnapshot = { input: row.input, value: row.value, metadata: row.metadata };
      const after: ActivitySnapshot = {
        input: checked.input,
        value: outcome.value,
        metadata: outcome.metadata,
      };
      if (isDeepStrictEqual(before, after)) return { done: before };

      const slot = { formId: row.form_id, siteId: row.site_id, year: row.year, period: row.period_unit };
      await writeValues(tx, caller, { guards: deps.guards, slots: [slot] }, async (values) => {
        await repo.update(tx, org, caller.userId, [
          { id: row.id, definitionId: definition.id, ...after, coefficients: outcome.coefficients },
        ]);
        await repo.insertHistory(tx, org, caller.userId, [
          { activityId: row.id, action: 'UPDATE', before, after },
        ]);
        const list = await repo.inputsOf(tx, org, row.form_element_submission_id);
        await values.relist(row.form_element_submission_id, list, snapshotOf({ ...row, value: row.list }));
      });
      return { done: after };
    });
  } finally {
    await session.dispose();
  }
}
