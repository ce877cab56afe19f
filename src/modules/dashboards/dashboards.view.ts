import type { Database, Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import type { DashboardView, GlobalFilter } from '../../domain/dashboards.ts';
import { badRequest, type Issue, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { gateRefusal, grantOpens, isGated } from './dashboards.access.ts';
import { cachedView, rememberView } from './dashboards.cache.ts';
import { computeWidgets } from './dashboards.data.ts';
import { presentPublic, presentWidget } from './dashboards.present.ts';
import { findPublicDashboard } from './dashboards.public.ts';
import { dashboardsRepository as repo } from './dashboards.repository.ts';
import { findDashboard } from './dashboards.service.ts';
import { DashboardSiteTree } from './dashboards.sites.ts';

/** `GET /dashboards/{id}/data`: every widget computed within the member's sites. */
export async function memberView(tx: Tx, caller: Caller, id: string, now: Date): Promise<DashboardView> {
  const row = await findDashboard(tx, caller, id);
  const widgets = (await repo.widgets(tx, caller.organizationId, [row.id])).map(presentWidget);
  const data = await computeWidgets(tx, caller, row.global_filter as GlobalFilter, widgets, now);
  return { dashboard: presentPublic(row), widgets, data, sites: [], computedAt: now.toISOString() };
}

/** `siteIds` of the query: comma-separated, repeated, or both. */
export function pickedSites(query: string | string[] | undefined): string[] | undefined {
  if (query === undefined) return undefined;
  const list = (Array.isArray(query) ? query : [query]).flatMap((v) => v.split(','));
  return [...new Set(list.map((v) => v.trim()).filter((v) => v !== ''))];
}

export interface PublicViewDeps {
  database: Database;
  clock: () => Date;
}

/**
 * `GET /public/dashboards/{id}`: 404 unless public; 401 while a gate applies and no valid grant
 * is presented; else the dashboard with every stored widget computed over the organization's
 * sites within its filter (or the sites the viewer picked, when allowed), cached briefly.
 */
export async function publicView(
  deps: PublicViewDeps,
  id: string,
  bearer: string | undefined,
  picked: string[] | undefined,
): Promise<DashboardView> {
  const row = await findPublicDashboard(deps.database, id);
  if (!row) throw notFound('Dashboard');
  return deps.database.tenant(row.organization_id, async (tx) => {
    const now = deps.clock();
    if (isGated(row) && !(await grantOpens(tx, row, bearer, now)))
      throw gateRefusal(
        row,
        bearer ? 'Invalid or expired access grant' : 'This dashboard needs an access grant',
      );
    const filter = row.global_filter as GlobalFilter;
    const tree = await DashboardSiteTree.load(tx, row.organization_id);
    const allowed = filter.siteIds?.length ? tree.expand(filter.siteIds) : new Set(tree.byId.keys());
    if (picked !== undefined) {
      if (!row.public_can_filter_sites)
        throw badRequest('siteIds: this dashboard does not let viewers choose sites', [
          { path: 'siteIds', message: 'siteIds: this dashboard does not let viewers choose sites' },
        ]);
      const issues: Issue[] = [];
      picked.forEach((site, i) => {
        if (!allowed.has(site))
          issues.push({ path: `siteIds.${i}`, message: `siteIds.${i} is not a site this dashboard shows` });
      });
      if (issues.length > 0) throw badRequest(issues[0]!.message, issues);
    }
    const chosen = picked?.length ? picked : undefined;
    const updatedAt = iso(row.updated_at);
    const hit = cachedView(row.id, updatedAt, chosen ?? [], now);
    if (hit) return hit;
    const widgets = (await repo.widgets(tx, row.organization_id, [row.id])).map(presentWidget);
    const data = await computeWidgets(tx, { organizationId: row.organization_id }, filter, widgets, now, {
      tree,
      ...(chosen ? { siteIds: chosen } : {}),
    });
    const sites = row.public_can_filter_sites
      ? [...allowed]
          .map((siteId) => ({ id: siteId, name: tree.byId.get(siteId)!.name }))
          .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
      : [];
    const view: DashboardView = {
      dashboard: presentPublic(row),
      widgets,
      data,
      sites,
      computedAt: now.toISOString(),
    };
    rememberView(row.id, updatedAt, chosen ?? [], view, now);
    return view;
  });
}
