import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { invalidField } from '../../domain/errors.ts';
import { Evaluator } from './indicators.evaluator.ts';
import {
  aggregateOperands,
  perSiteOf,
  prepare,
  siteGroupAggregates,
  siteTrees,
  wholeScopeOperands,
} from './indicators.operands.ts';
import { presentCurrentValue } from './indicators.present.ts';
import type { CurrentValue, CurrentValuesBody } from './indicators.schemas.ts';
import type { Scope } from './indicators.scope.ts';
import { indicatorValuesRepository as values } from './values.repository.ts';

/** The years a request covers: `year`, or `startYear`..`endYear`; by default the current year. */
function yearsOf(body: CurrentValuesBody, now: Date): { fromYear: number; toYear: number } {
  if (body.year !== undefined && (body.startYear !== undefined || body.endYear !== undefined))
    throw invalidField('year', 'year cannot be combined with startYear or endYear');
  const current = now.getUTCFullYear();
  const fromYear = body.year ?? body.startYear ?? Math.min(body.endYear ?? current, current);
  const toYear = body.year ?? body.endYear ?? Math.max(fromYear, current);
  if (fromYear > toYear) throw invalidField('endYear', 'endYear is before startYear');
  return { fromYear, toYear };
}
/**
 * Current values of indicators (DESIGN §7): each operand aggregated over the whole scope in SQL
 * (one query for all NUMBER elements, one for all activities), then each formula applied.
 */
export async function currentValues(tx: Tx, caller: Caller, body: CurrentValuesBody, now: Date) {
  const { fromYear, toYear } = yearsOf(body, now);
  const prepared = await prepare(tx, caller.organizationId, body.indicatorIds, toYear);
  if (body.periodUnits?.length === 0) throw invalidField('periodUnits', 'periodUnits is empty');
  const scope: Scope = {
    siteIds: (await siteTrees(tx, caller, body.siteIds)).all,
    fromYear,
    toYear,
    periodUnits: body.periodUnits ? [...new Set(body.periodUnits)] : null,
    statuses: body.statuses ?? (await values.defaultStatuses(tx, caller.organizationId)),
  };
  const aggregates = await aggregateOperands(
    tx,
    caller.organizationId,
    wholeScopeOperands(prepared, body.indicatorIds),
    scope,
    undefined,
    body.explain === true,
  );
  const perSite = await siteGroupAggregates(
    tx,
    caller.organizationId,
    prepared,
    scope,
    new Map([[null, scope.siteIds]]),
    toYear,
    undefined,
    body.explain === true,
  );
  const { byId, refs } = prepared;
  const evaluator = new Evaluator(
    byId,
    refs,
    new Map(aggregates.map((a) => [a.element_id, a])),
    body.explain === true,
    perSiteOf(perSite, null, null),
  );
  const siteCount = scope.siteIds?.length ?? (await values.siteCount(tx, caller.organizationId));
  const results: Record<string, CurrentValue> = {};
  for (const id of new Set(body.indicatorIds)) {
    const row = byId.get(id)!;
    const { evaluation, explain } = evaluator.run(row, []);
    results[id] = presentCurrentValue(
      row,
      refs,
      evaluation,
      body.explain
        ? {
            scope: {
              siteIds: body.siteIds ?? null,
              sitesInScope: siteCount,
              siteCount,
              allSites: scope.siteIds === null,
              fromYear,
              toYear,
              periodUnits: scope.periodUnits,
              statuses: scope.statuses,
            },
            ...explain,
          }
        : undefined,
    );
  }
  return { results };
}
