import type { Database, Tx } from '../../db/client.ts';
import { siteTree } from '../sites/index.ts';
import type { CompletenessScope, TotalsRow } from './completeness.repository.ts';
import { keptRepository } from './kept.repository.ts';

/**
 * Whether the totals of GET /completeness are read from the kept cells (migration 0035) rather
 * than counted from the values. Always on in the service; the property test and the benchmark
 * turn it off to compare with the direct computation.
 */
export const completenessSource = { enabled: true };

/** The sites of the scope: every site (null), or those of `siteIds` the caller may read. */
function scopeSites(q: CompletenessScope): string[] | null {
  if (q.siteIds) return q.scope.all ? q.siteIds : q.siteIds.filter((id) => q.scope.siteIds.has(id));
  return q.scope.all ? null : [...q.scope.siteIds];
}

/**
 * The totals over every cell of the scope, from the subtree rows of `completeness_subtree`: the
 * scope's sites are covered by a few subtrees (weighted, see SiteTree.cover), whose rows give per
 * period how many form-sites there are and how many of their cells are complete, partial,
 * without activity and on time. Missing is what is left; overdue the missing and partial cells
 * of the periods already due at `q.now`. Same figures as the direct count (repo.totals), at a
 * cost that depends on the cover and the periods, not on the values.
 */
export async function keptTotals(tx: Tx, org: string, q: CompletenessScope): Promise<TotalsRow> {
  const sites = scopeSites(q);
  // The whole organization reads its own row (migration 0038), whatever the shape of its tree.
  const cover = sites === null ? { siteIds: [org], weights: [1] } : (await siteTree(tx, org)).cover(sites);
  const units = q.periods.map((p) => p.periodUnit);
  const rows = await keptRepository.subtreeCounts(tx, org, { formId: q.formId, year: q.year, units }, cover);
  const byUnit = new Map(rows.map((r) => [r.period_unit, r]));
  const formSites = byUnit.get(0)?.form_sites ?? 0;
  const totals: TotalsRow = {
    sites: formSites,
    expected_reports: formSites * q.periods.length,
    actual_reports: 0,
    on_time_reports: 0,
    complete: 0,
    partial: 0,
    missing: 0,
    no_activity: 0,
    overdue: 0,
  };
  for (const period of q.periods) {
    const row = byUnit.get(period.periodUnit);
    const complete = row?.complete ?? 0;
    const partial = row?.partial ?? 0;
    const noActivity = row?.no_activity ?? 0;
    const missing = formSites - complete - partial - noActivity;
    totals.complete += complete;
    totals.partial += partial;
    totals.no_activity += noActivity;
    totals.missing += missing;
    totals.actual_reports += complete + noActivity;
    totals.on_time_reports += row?.on_time ?? 0;
    if (period.dueAt !== null && period.dueAt < q.now) totals.overdue += missing + partial;
  }
  return totals;
}

/** A key of the kept completeness whose stored row differs from the recomputed one (absent: null). */
export interface CompletenessDifference {
  organizationId: string;
  table: 'cells' | 'subtree';
  /** form-site and period (cells), or site, form, year and period (subtree). */
  key: string;
  stored: string | null;
  computed: string | null;
}

/**
 * Recomputes one organization's kept completeness (migration 0035) from its values, markers,
 * forms and sites, and lists every row that differs. A subtree row whose counts all went back to
 * zero counts as absent.
 */
export async function verifyCompleteness(tx: Tx, org: string): Promise<CompletenessDifference[]> {
  const rows = await keptRepository.differences(tx, org);
  return rows.map((r) => ({
    organizationId: org,
    table: r.tbl,
    key: r.key,
    stored: r.stored,
    computed: r.computed,
  }));
}

/**
 * The kept completeness of every organization (or one) checked in its own transaction, outside
 * row-level security; with `repair`, an organization with differences is rebuilt.
 */
export async function verifyAllCompleteness(
  database: Database,
  options: { organizationId?: string; repair?: boolean } = {},
): Promise<{ organizations: number; differences: CompletenessDifference[]; repaired: string[] }> {
  const ids = options.organizationId
    ? [options.organizationId]
    : await database.system((tx) => keptRepository.organizationIds(tx));
  const differences: CompletenessDifference[] = [];
  const repaired: string[] = [];
  for (const id of ids) {
    const found = await database.system((tx) => verifyCompleteness(tx, id));
    differences.push(...found);
    if (found.length > 0 && options.repair) {
      await database.system((tx) => keptRepository.rebuild(tx, id));
      repaired.push(id);
    }
  }
  return { organizations: ids.length, differences, repaired };
}
