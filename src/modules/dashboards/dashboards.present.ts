import type { ValueStatus } from '../../db/schema/index.ts';
import type {
  GlobalFilter,
  PublicDashboard,
  WidgetTheme,
  Widget as WidgetView,
} from '../../domain/dashboards.ts';
import { iso } from '../../domain/time.ts';
import { requiresEmail } from './dashboards.public.ts';
import type { DashboardRow, WidgetRow } from './dashboards.repository.ts';
import type { Dashboard } from './dashboards.schemas.ts';

export function presentDashboard(row: DashboardRow, defaultStatuses: string[]): Dashboard {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    organizationId: row.organization_id,
    isPublic: row.is_public,
    publicCanFilterSites: row.public_can_filter_sites,
    order: row.position,
    globalFilter: row.global_filter as GlobalFilter,
    widgetTheme: row.widget_theme as WidgetTheme,
    tags: row.tags,
    hasPassword: row.password_hash !== null,
    requiresEmail: requiresEmail(row),
    publicAccessEmails: row.public_access_emails,
    publicAccessDomains: row.public_access_domains,
    organizationDefaultStatuses: defaultStatuses as ValueStatus[],
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function presentWidget(row: WidgetRow): WidgetView {
  return {
    id: row.id,
    dashboardId: row.dashboard_id,
    type: row.type as WidgetView['type'],
    title: row.title,
    indicatorIds: row.indicator_ids,
    config: row.config as WidgetView['config'],
    position: row.position,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function presentPublic(row: DashboardRow): PublicDashboard {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    isPublic: row.is_public,
    publicCanFilterSites: row.public_can_filter_sites,
    hasPassword: row.password_hash !== null,
    requiresEmail: requiresEmail(row),
    globalFilter: row.global_filter as GlobalFilter,
    widgetTheme: row.widget_theme as WidgetTheme,
    tags: row.tags,
    updatedAt: iso(row.updated_at),
  };
}
