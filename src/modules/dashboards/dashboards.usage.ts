import type { Tx } from '../../db/client.ts';
import { registerWidgetUsage, type WidgetUsage } from '../indicators/index.ts';
import { dashboardsRepository as repo } from './dashboards.repository.ts';

/** The dashboard widgets naming each indicator (one query for all of them). */
export async function dashboardWidgetUsage(
  tx: Tx,
  organizationId: string,
  indicatorIds: string[],
): Promise<Map<string, WidgetUsage[]>> {
  const wanted = new Set(indicatorIds);
  const out = new Map<string, WidgetUsage[]>();
  for (const w of await repo.widgetsUsing(tx, organizationId, indicatorIds)) {
    for (const id of w.indicator_ids) {
      if (!wanted.has(id)) continue;
      out.set(id, [
        ...(out.get(id) ?? []),
        {
          widgetId: w.id,
          widgetName: w.title,
          dashboardId: w.dashboard_id,
          dashboardName: w.dashboard_name,
          reportId: null,
          reportSectionId: null,
          reportSectionName: null,
          reportName: null,
          isDirect: true,
          viaIndicatorId: null,
          viaIndicatorName: null,
          viaIndicatorLabel: null,
        },
      ]);
    }
  }
  return out;
}

registerWidgetUsage(dashboardWidgetUsage);
