import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import type { GlobalFilter, Widget as WidgetView } from '../../domain/dashboards.ts';
import { authorize, badRequest, type Issue, notFound } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { hashPassword } from '../../lib/secrets.ts';
import { siteScope } from '../access/index.ts';
import { sites } from '../sites/index.ts';
import { forgetPublicViews } from './dashboards.cache.ts';
import { dashboardPolicy } from './dashboards.policy.ts';
import { presentDashboard, presentWidget } from './dashboards.present.ts';
import type { DashboardRow, WidgetRow } from './dashboards.repository.ts';
import {
  type DashboardFields,
  dashboardsRepository as repo,
  type WidgetFields,
} from './dashboards.repository.ts';
import type {
  CreateDashboardBody,
  CreateWidgetBody,
  Dashboard,
  UpdateDashboardBody,
  UpdateWidgetBody,
} from './dashboards.schemas.ts';

const dashboardNotFound = () => notFound('Dashboard');

/** The caller's organization's dashboard, or a 404 (unknown, malformed or another tenant's id). */
export async function findDashboard(tx: Tx, caller: Caller, id: string): Promise<DashboardRow> {
  const row = isUuid(id) ? await repo.find(tx, caller.organizationId, id) : undefined;
  if (!row) throw dashboardNotFound();
  return row;
}

function validDay(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!));
  return d.getUTCFullYear() === +m[1]! && d.getUTCMonth() === +m[2]! - 1 && d.getUTCDate() === +m[3]!;
}

/** What JSON Schema cannot check of a filter: real days, ordered bounds, sites of the organization. */
async function checkFilter(tx: Tx, caller: Caller, filter: GlobalFilter, issues: Issue[]): Promise<void> {
  const issue = (path: string, message: string) => issues.push({ path, message: `${path} ${message}` });
  if (filter.startYear !== undefined && filter.endYear !== undefined && filter.startYear > filter.endYear)
    issue('globalFilter.endYear', 'is before startYear');
  for (const key of ['startDate', 'endDate'] as const) {
    const day = filter[key];
    if (day !== undefined && !validDay(day)) issue(`globalFilter.${key}`, 'is not a day (YYYY-MM-DD)');
  }
  if (filter.startDate && filter.endDate && filter.startDate > filter.endDate)
    issue('globalFilter.endDate', 'is before startDate');
  const ids = filter.siteIds ?? [];
  const existing = await sites.existing(tx, caller.organizationId, ids);
  ids.forEach((id, i) => {
    if (!existing.has(id)) issue(`globalFilter.siteIds.${i}`, 'is not a site of this organization');
  });
}

const lower = (list: string[]) => [...new Set(list.map((v) => v.trim().toLowerCase()))];

/**
 * The publish rule: a public dashboard shows its filter's sites to anyone, so a member limited
 * to some sites may change one (its fields, or any of its widgets) only when its filter names
 * sites, all within theirs.
 */
async function assertMayPublish(tx: Tx, caller: Caller, isPublic: boolean, filter: GlobalFilter) {
  if (!isPublic) return;
  const scope = await siteScope(tx, caller);
  authorize(
    dashboardPolicy.canPublish(caller, scope, filter.siteIds),
    'A member limited to some sites may change a public dashboard (or its widgets) only when its filter names sites, all within theirs',
  );
}

async function save(tx: Tx, caller: Caller, fields: DashboardFields, filterChanged: boolean) {
  const issues: Issue[] = [];
  if (filterChanged) await checkFilter(tx, caller, fields.globalFilter as GlobalFilter, issues);
  if (issues.length > 0) throw badRequest(issues[0]!.message, issues);
  await assertMayPublish(tx, caller, fields.isPublic, fields.globalFilter as GlobalFilter);
}

/** Widgets follow their dashboard's publish rule: what they show is published with it. */
const assertMayChangeWidgets = (tx: Tx, caller: Caller, dashboard: DashboardRow) =>
  assertMayPublish(tx, caller, dashboard.is_public, dashboard.global_filter as GlobalFilter);

export async function listDashboards(tx: Tx, caller: Caller): Promise<Dashboard[]> {
  const [rows, statuses] = await Promise.all([
    repo.list(tx, caller.organizationId),
    repo.defaultStatuses(tx, caller.organizationId),
  ]);
  return rows.map((row) => presentDashboard(row, statuses));
}

export async function getDashboard(tx: Tx, caller: Caller, id: string) {
  const row = await findDashboard(tx, caller, id);
  const [widgets, statuses] = await Promise.all([
    repo.widgets(tx, caller.organizationId, [row.id]),
    repo.defaultStatuses(tx, caller.organizationId),
  ]);
  return { ...presentDashboard(row, statuses), widgets: widgets.map(presentWidget) };
}

async function answer(tx: Tx, caller: Caller, id: string): Promise<Dashboard> {
  const row = await findDashboard(tx, caller, id);
  return presentDashboard(row, await repo.defaultStatuses(tx, caller.organizationId));
}

export async function createDashboard(tx: Tx, caller: Caller, body: CreateDashboardBody): Promise<Dashboard> {
  const fields: DashboardFields = {
    name: body.name,
    description: body.description ?? null,
    isPublic: body.isPublic ?? false,
    publicCanFilterSites: body.publicCanFilterSites ?? false,
    order: body.order ?? 0,
    globalFilter: body.globalFilter ?? {},
    widgetTheme: body.widgetTheme ?? {},
    tags: body.tags ?? [],
    passwordHash: body.password ? await hashPassword(body.password) : null,
    publicAccessEmails: lower(body.publicAccessEmails ?? []),
    publicAccessDomains: lower(body.publicAccessDomains ?? []),
    gateVersion: 1,
  };
  await save(tx, caller, fields, true);
  const id = await repo.insert(tx, caller.organizationId, fields);
  return answer(tx, caller, id);
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

export async function updateDashboard(
  tx: Tx,
  caller: Caller,
  id: string,
  body: UpdateDashboardBody,
): Promise<Dashboard> {
  const row = await findDashboard(tx, caller, id);
  const emails = body.publicAccessEmails ? lower(body.publicAccessEmails) : row.public_access_emails;
  const domains = body.publicAccessDomains ? lower(body.publicAccessDomains) : row.public_access_domains;
  // A password sent (even the same one) or changed lists end the grants issued before.
  const gateChanged =
    body.password !== undefined ||
    !sameList(emails, row.public_access_emails) ||
    !sameList(domains, row.public_access_domains);
  const fields: DashboardFields = {
    name: body.name ?? row.name,
    description: body.description === undefined ? row.description : body.description,
    isPublic: body.isPublic ?? row.is_public,
    publicCanFilterSites: body.publicCanFilterSites ?? row.public_can_filter_sites,
    order: body.order ?? row.position,
    globalFilter: body.globalFilter ?? row.global_filter,
    widgetTheme: body.widgetTheme ?? row.widget_theme,
    tags: body.tags ?? row.tags,
    passwordHash:
      body.password === undefined
        ? row.password_hash
        : body.password === null
          ? null
          : await hashPassword(body.password),
    publicAccessEmails: emails,
    publicAccessDomains: domains,
    gateVersion: gateChanged ? row.gate_version + 1 : row.gate_version,
  };
  await save(tx, caller, fields, body.globalFilter !== undefined);
  await repo.update(tx, caller.organizationId, row.id, fields);
  if (gateChanged) await repo.revokeStaleGrants(tx, caller.organizationId, row.id, fields.gateVersion);
  forgetPublicViews(row.id);
  return answer(tx, caller, row.id);
}

export async function removeDashboard(tx: Tx, caller: Caller, id: string): Promise<Dashboard> {
  const row = await findDashboard(tx, caller, id);
  const statuses = await repo.defaultStatuses(tx, caller.organizationId);
  await repo.remove(tx, caller.organizationId, row.id);
  forgetPublicViews(row.id);
  return presentDashboard(row, statuses);
}

// Widgets

async function checkIndicators(tx: Tx, caller: Caller, ids: string[]): Promise<void> {
  const existing = await repo.existingIndicators(tx, caller.organizationId, ids.filter(isUuid));
  const issues: Issue[] = [];
  ids.forEach((id, i) => {
    if (!existing.has(id))
      issues.push({
        path: `indicatorIds.${i}`,
        message: `indicatorIds.${i} is not an indicator of this organization`,
      });
  });
  if (issues.length > 0) throw badRequest(issues[0]!.message, issues);
}

const PUBLIC_NOTICE =
  'This dashboard is public: the widget is visible to anyone who may open its link (/public/dashboards/{id}).';

function widgetAnswer(widget: WidgetView, dashboard: DashboardRow) {
  return {
    ...widget,
    dashboardIsPublic: dashboard.is_public,
    notice: dashboard.is_public ? PUBLIC_NOTICE.replace('{id}', dashboard.id) : null,
  };
}

async function findWidget(tx: Tx, caller: Caller, dashboard: DashboardRow, id: string): Promise<WidgetRow> {
  const row = isUuid(id) ? await repo.findWidget(tx, caller.organizationId, dashboard.id, id) : undefined;
  if (!row) throw notFound('Widget');
  return row;
}

export async function createWidget(tx: Tx, caller: Caller, dashboardId: string, body: CreateWidgetBody) {
  const dashboard = await findDashboard(tx, caller, dashboardId);
  await assertMayChangeWidgets(tx, caller, dashboard);
  await checkIndicators(tx, caller, body.indicatorIds);
  const fields: WidgetFields = {
    type: body.type,
    title: body.title,
    indicatorIds: [...new Set(body.indicatorIds)],
    config: body.config ?? {},
  };
  const id = await repo.insertWidget(tx, caller.organizationId, dashboard.id, fields);
  await repo.touch(tx, caller.organizationId, dashboard.id);
  forgetPublicViews(dashboard.id);
  return widgetAnswer(presentWidget(await findWidget(tx, caller, dashboard, id)), dashboard);
}

export async function updateWidget(
  tx: Tx,
  caller: Caller,
  dashboardId: string,
  widgetId: string,
  body: UpdateWidgetBody,
) {
  const dashboard = await findDashboard(tx, caller, dashboardId);
  await assertMayChangeWidgets(tx, caller, dashboard);
  const row = await findWidget(tx, caller, dashboard, widgetId);
  if (body.indicatorIds) await checkIndicators(tx, caller, body.indicatorIds);
  const fields: WidgetFields = {
    type: body.type ?? row.type,
    title: body.title ?? row.title,
    indicatorIds: body.indicatorIds ? [...new Set(body.indicatorIds)] : row.indicator_ids,
    config: body.config ?? row.config,
  };
  await repo.updateWidget(tx, caller.organizationId, row.id, fields);
  await repo.touch(tx, caller.organizationId, dashboard.id);
  forgetPublicViews(dashboard.id);
  return widgetAnswer(presentWidget(await findWidget(tx, caller, dashboard, row.id)), dashboard);
}

export async function removeWidget(tx: Tx, caller: Caller, dashboardId: string, widgetId: string) {
  const dashboard = await findDashboard(tx, caller, dashboardId);
  await assertMayChangeWidgets(tx, caller, dashboard);
  const row = await findWidget(tx, caller, dashboard, widgetId);
  await repo.removeWidget(tx, caller.organizationId, row.id);
  await repo.touch(tx, caller.organizationId, dashboard.id);
  forgetPublicViews(dashboard.id);
  return widgetAnswer(presentWidget(row), dashboard);
}
