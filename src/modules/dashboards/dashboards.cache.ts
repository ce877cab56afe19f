import type { DashboardView } from '../../domain/dashboards.ts';

/**
 * Public answers, kept a few seconds per (dashboard, its last change, site filter) so that a
 * shared link opened by many people computes once per period. A change of the dashboard or
 * its widgets moves `updatedAt` (so other processes miss the old entry too) and drops this
 * process's entries at once.
 */
export const PUBLIC_VIEW_TTL_MS = 5_000;
const MAX_ENTRIES = 1_000;

const views = new Map<string, { view: DashboardView; until: number }>();

const keyOf = (dashboardId: string, updatedAt: string, siteIds: readonly string[]) =>
  `${dashboardId}|${updatedAt}|${[...siteIds].sort().join(',')}`;

export function cachedView(
  dashboardId: string,
  updatedAt: string,
  siteIds: readonly string[],
  now: Date,
): DashboardView | undefined {
  const key = keyOf(dashboardId, updatedAt, siteIds);
  const hit = views.get(key);
  if (!hit) return undefined;
  if (hit.until <= now.getTime()) {
    views.delete(key);
    return undefined;
  }
  return hit.view;
}

export function rememberView(
  dashboardId: string,
  updatedAt: string,
  siteIds: readonly string[],
  view: DashboardView,
  now: Date,
): void {
  if (views.size >= MAX_ENTRIES) {
    for (const [key, entry] of views) if (entry.until <= now.getTime()) views.delete(key);
    // Still full: drop the oldest entry (Map keeps insertion order).
    if (views.size >= MAX_ENTRIES) views.delete(views.keys().next().value!);
  }
  views.set(keyOf(dashboardId, updatedAt, siteIds), { view, until: now.getTime() + PUBLIC_VIEW_TTL_MS });
}

/** Drops this process's cached answers of a dashboard (it or a widget changed, or it is gone). */
export function forgetPublicViews(dashboardId: string): void {
  for (const key of views.keys()) if (key.startsWith(`${dashboardId}|`)) views.delete(key);
}
