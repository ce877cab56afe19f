import type { Database, Tx } from '../../db/client.ts';
import { totalsRepository } from './totals.repository.ts';

/** A key of `value_totals` whose stored row differs from the values (an absent row counts as 0). */
export interface TotalsDifference {
  organizationId: string;
  siteId: string;
  elementId: string;
  year: number;
  status: string;
  periodUnit: number;
  stored: { total: string; count: number };
  computed: { total: string; count: number };
}

/**
 * Recomputes one organization's pre-aggregated totals (migration 0029) from its values, with the
 * same rules as the direct computation, and lists every key where the stored row differs.
 */
export async function verifyTotals(tx: Tx, organizationId: string): Promise<TotalsDifference[]> {
  const rows = await totalsRepository.differences(tx, organizationId);
  return rows.map((r) => ({
    organizationId,
    siteId: r.site_id,
    elementId: r.element_id,
    year: Number(r.year),
    status: r.status,
    periodUnit: Number(r.period_unit),
    stored: { total: r.stored_total, count: Number(r.stored_count) },
    computed: { total: r.computed_total, count: Number(r.computed_count) },
  }));
}

/** Replaces one organization's totals by the ones recomputed from its values. */
export async function rebuildTotals(tx: Tx, organizationId: string): Promise<void> {
  await totalsRepository.rebuild(tx, organizationId);
}

/**
 * `sdcs verify-aggregates`: every organization (or one) checked in its own transaction, outside
 * row-level security; with `repair`, an organization with differences is rebuilt.
 */
export async function verifyAllTotals(
  database: Database,
  options: { organizationId?: string; repair?: boolean } = {},
): Promise<{ organizations: number; differences: TotalsDifference[]; repaired: string[] }> {
  const ids = options.organizationId
    ? [options.organizationId]
    : await database.system((tx) => totalsRepository.organizationIds(tx));
  const differences: TotalsDifference[] = [];
  const repaired: string[] = [];
  for (const id of ids) {
    const found = await database.system((tx) => verifyTotals(tx, id));
    differences.push(...found);
    if (found.length > 0 && options.repair) {
      await database.system((tx) => rebuildTotals(tx, id));
      repaired.push(id);
    }
  }
  return { organizations: ids.length, differences, repaired };
}
