import type { Tx } from '../../db/client.ts';
import { groupBy } from '../../lib/group-by.ts';
import { registerWidgetUsage, type WidgetUsage } from '../indicators/index.ts';
import { dashboardsRepository as repo } from './dashboards.repository.ts';

/** The dashboard widgets naming each indicator (one query for all of them). */
export async function dashboardWidgetUsage(
  tx: Tx,
  organizationId: string,
  indicatorIds: string[],
): Promise<Map<string, WidgetUsage[]>> {
  const wanted = new Set(indicatorIds);
  const widgets = await repo.widgetsUsing(tx, organizationId, indicatorIds);
  return groupBy(
    widgets.flatMap((w) => w.indicator_ids.filter((id) => wanted.has(id)).map((id) => ({ id, w }))),
    (u) => u.id,
    ({ w }): WidgetUsage => ({
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
    }),
  );
}

registerWidgetUsage(dashboardWidgetUsage);
