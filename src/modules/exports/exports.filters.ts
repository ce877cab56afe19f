import type { Tx } from '../../db/client.ts';
import type { PeriodType, ValueStatus } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { forbidden, invalidField } from '../../domain/errors.ts';
import { groupBy } from '../../lib/group-by.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, siteScope } from '../access/index.ts';
import { databaseNow, type ExportContext, type ExportSiteInfo, liveForm, organizationSites } from './exports.repository.ts';
import type { ExportQuery } from './exports.schemas.ts';

const STATUSES: readonly ValueStatus[] = ['COMPLETED', 'APPROVED', 'REJECTED'];

/** The items of a list parameter sent comma-separated, repeated, or both; null when absent. */
function listItems(values: string[] | undefined, name: string): string[] | null {
  if (values === undefined) return null;
  const items = values.flatMap((v) => v.split(',')).map((v) => v.trim());
  if (items.length === 0 || items.some((v) => v === ''))
    throw invalidField(name, `${name} has an empty item`);
  return [...new Set(items)];
}

/** "2024", "2024-Q1", "2024-03". */
export function periodText(year: number, periodType: PeriodType, periodUnit: number): string {
  if (periodType === 'MONTHLY') return `${year}-${String(periodUnit).padStart(2, '0')}`;
  if (periodType === 'QUARTERLY') return `${year}-Q${periodUnit}`;
  return String(year);
}

/**
 * Checks an export's filters (400 naming the field; 403 for a named site outside the caller's
 * scope) and reads what every page needs: the start time and the organization's sites.
 */
export async function exportContext(tx: Tx, caller: Caller, query: ExportQuery): Promise<ExportContext> {
  const org = caller.organizationId;
  const scope = await siteScope(tx, caller);
  const asOf = await databaseNow(tx);
  const siteRows = await organizationSites(tx, org);
  const byId = new Map(siteRows.map((s) => [s.id, s]));
  const sites = new Map<string, ExportSiteInfo>();
  const pathOf = (id: string, seen = new Set<string>()): string => {
    const known = sites.get(id);
    if (known) return known.path;
    const site = byId.get(id)!;
    const parent = site.parent_id && !seen.has(site.parent_id) ? byId.get(site.parent_id) : undefined;
    seen.add(id);
    const path = parent ? `${pathOf(parent.id, seen)} / ${site.name}` : site.name;
    sites.set(id, { code: site.code, name: site.name, path });
    return path;
  };
  for (const s of siteRows) pathOf(s.id);

  let formId: string | null = null;
  if (query.formId !== undefined) {
    const form = isUuid(query.formId) ? await liveForm(tx, org, query.formId) : undefined;
    if (!form) throw invalidField('formId', `formId: ${query.formId} is not a form of this organization`);
    formId = form.id;
  }

  let siteIds: string[] | null = null;
  const named = listItems(query.siteIds, 'siteIds')?.map((s) => s.toLowerCase()) ?? null;
  if (named) {
    for (const id of named) {
      if (!isUuid(id)) throw invalidField('siteIds', `siteIds: "${id}" is not a site id (UUID)`);
      if (!byId.has(id)) throw invalidField('siteIds', `siteIds: ${id} is not a site of this organization`);
      if (!policy.canReadSite(scope, id)) throw forbidden(`You cannot read the data of site ${id}`);
    }
    const children = groupBy(
      siteRows.filter((s) => s.parent_id),
      (s) => s.parent_id!,
      (s) => s.id,
    );
    const chosen = new Set<string>();
    const walk = (id: string) => {
      if (chosen.has(id)) return;
      chosen.add(id);
      for (const child of children.get(id) ?? []) walk(child);
    };
    for (const id of named) walk(id);
    siteIds = [...chosen].filter((id) => policy.canReadSite(scope, id));
  } else if (!scope.all) {
    siteIds = [...scope.siteIds];
  }

  // The schema checked each period (an integer 1..12) and each status (one of three).
  const periodUnits = query.periodUnits === undefined ? null : [...new Set(query.periodUnits)];
  const statuses =
    listItems(query.statuses, 'statuses')?.map((v) => {
      const status = v.toUpperCase() as ValueStatus;
      if (!STATUSES.includes(status))
        throw invalidField('statuses', `statuses: "${v}" is not one of ${STATUSES.join(', ')}`);
      return status;
    }) ?? null;
  let updatedSince: Date | null = null;
  if (query.updatedSince !== undefined) {
    updatedSince = new Date(query.updatedSince);
    if (Number.isNaN(updatedSince.getTime()))
      throw invalidField('updatedSince', 'updatedSince must be an ISO 8601 date-time');
  }

  return {
    organizationId: org,
    asOf,
    year: query.year,
    formId,
    siteIds,
    periodUnits,
    statuses,
    updatedSince,
    key: query.key ?? null,
    sites,
  };
}
