import type { Tx } from '../../db/client.ts';
import type { WidgetUsage } from './indicators.schemas.ts';

/**
 * Where dashboards (and reports) use indicators. The indicators module does not know those
 * modules: they plug a provider in here (`registerWidgetUsage` at module load), which answers
 * for many indicators at once with one query. Without providers every usage list is empty.
 */
export type WidgetUsageProvider = (
  tx: Tx,
  organizationId: string,
  indicatorIds: string[],
) => Promise<Map<string, WidgetUsage[]>>;

const providers: WidgetUsageProvider[] = [];

export function registerWidgetUsage(provider: WidgetUsageProvider): void {
  if (!providers.includes(provider)) providers.push(provider);
}

/** The widgets that use each indicator directly (indirect use is added by the caller). */
export async function widgetUsage(
  tx: Tx,
  organizationId: string,
  indicatorIds: string[],
): Promise<Map<string, WidgetUsage[]>> {
  const merged = new Map<string, WidgetUsage[]>();
  for (const provider of providers) {
    for (const [id, usages] of await provider(tx, organizationId, indicatorIds)) {
      merged.set(id, [...(merged.get(id) ?? []), ...usages]);
    }
  }
  return merged;
}
