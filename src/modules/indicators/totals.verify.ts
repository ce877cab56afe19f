import { sql } from 'kysely';
import type { Database, Tx } from '../../db/client.ts';

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
  const result = await sql<{
    site_id: string;
    element_id: string;
    year: number;
    status: string;
    period_unit: number;
    stored_total: string;
    stored_count: string;
    computed_total: string;
    computed_count: string;
  }>`
    select coalesce(s.site_id, c.site_id) as site_id, coalesce(s.element_id, c.element_id) as element_id,
           coalesce(s.year, c.year) as year, coalesce(s.status, c.status) as status,
           coalesce(s.period_unit, c.period_unit) as period_unit,
           coalesce(s.total, 0)::text as stored_total, coalesce(s.value_count, 0)::text as stored_count,
           coalesce(c.total, 0)::text as computed_total, coalesce(c.value_count, 0)::text as computed_count
      from (select * from value_totals where organization_id = ${organizationId}) s
      full join sdcs_computed_value_totals(${organizationId}) c
        on c.site_id = s.site_id and c.element_id = s.element_id and c.year = s.year
       and c.status = s.status and c.period_unit = s.period_unit
     where coalesce(s.total, 0) <> coalesce(c.total, 0) or coalesce(s.value_count, 0) <> coalesce(c.value_count, 0)
     order by 1, 2, 3, 4, 5`.execute(tx);
  return result.rows.map((r) => ({
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
  await sql`select sdcs_rebuild_value_totals(${organizationId})`.execute(tx);
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
    : (
        await database.system((tx) => tx.selectFrom('organizations').select('id').orderBy('id').execute())
      ).map((r) => r.id);
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
