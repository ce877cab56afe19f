import { sql } from 'kysely';
import { json, type Tx } from '../../db/client.ts';

const DASHBOARD_COLUMNS = [
  'id',
  'organization_id',
  'name',
  'description',
  'is_public',
  'public_can_filter_sites',
  'position',
  'global_filter',
  'widget_theme',
  'tags',
  'password_hash',
  'public_access_emails',
  'public_access_domains',
  'gate_version',
  'created_at',
  'updated_at',
] as const;

const WIDGET_COLUMNS = [
  'id',
  'dashboard_id',
  'type',
  'title',
  'indicator_ids',
  'config',
  'position',
  'created_at',
  'updated_at',
] as const;

export interface DashboardFields {
  name: string;
  description: string | null;
  isPublic: boolean;
  publicCanFilterSites: boolean;
  order: number;
  globalFilter: Record<string, unknown>;
  widgetTheme: Record<string, unknown>;
  tags: string[];
  passwordHash: string | null;
  publicAccessEmails: string[];
  publicAccessDomains: string[];
  gateVersion: number;
}

const dashboardRow = (f: DashboardFields) => ({
  name: f.name,
  description: f.description,
  is_public: f.isPublic,
  public_can_filter_sites: f.publicCanFilterSites,
  position: f.order,
  global_filter: json(f.globalFilter),
  widget_theme: json(f.widgetTheme),
  tags: f.tags,
  password_hash: f.passwordHash,
  public_access_emails: f.publicAccessEmails,
  public_access_domains: f.publicAccessDomains,
  gate_version: f.gateVersion,
});

export interface WidgetFields {
  type: string;
  title: string;
  indicatorIds: string[];
  config: Record<string, unknown>;
}

/** Dashboards, widgets and public-access records; every method takes the organization id. */
export const dashboardsRepository = {
  list(tx: Tx, organizationId: string) {
    return tx
      .selectFrom('dashboards')
      .select(DASHBOARD_COLUMNS)
      .where('organization_id', '=', organizationId)
      .orderBy('position')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  },

  find(tx: Tx, organizationId: string, id: string) {
    return tx
      .selectFrom('dashboards')
      .select(DASHBOARD_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  /** A dashboard by id alone, whatever its organization: the public link's first lookup (no tenant yet). */
  findAnyOrganization(tx: Tx, id: string) {
    return tx.selectFrom('dashboards').select(DASHBOARD_COLUMNS).where('id', '=', id).executeTakeFirst();
  },

  async insert(tx: Tx, organizationId: string, fields: DashboardFields): Promise<string> {
    const created = await tx
      .insertInto('dashboards')
      .values({ organization_id: organizationId, ...dashboardRow(fields) })
      .returning('id')
      .executeTakeFirstOrThrow();
    return created.id;
  },

  async update(tx: Tx, organizationId: string, id: string, fields: DashboardFields): Promise<void> {
    await tx
      .updateTable('dashboards')
      .set({ ...dashboardRow(fields), updated_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  /** Marks the dashboard changed (a widget changed): public answers cached before are not reused. */
  async touch(tx: Tx, organizationId: string, id: string): Promise<void> {
    await tx
      .updateTable('dashboards')
      .set({ updated_at: sql`greatest(now(), updated_at + interval '1 millisecond')` })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  async remove(tx: Tx, organizationId: string, id: string): Promise<void> {
    await tx
      .deleteFrom('dashboards')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  /** Revokes every grant of a dashboard issued before its current gate version. */
  async revokeStaleGrants(tx: Tx, organizationId: string, id: string, gateVersion: number): Promise<void> {
    await tx
      .deleteFrom('dashboard_grants')
      .where('organization_id', '=', organizationId)
      .where('dashboard_id', '=', id)
      .where('gate_version', '<', gateVersion)
      .execute();
  },

  widgets(tx: Tx, organizationId: string, dashboardIds: string[]) {
    if (dashboardIds.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('dashboard_widgets')
      .select(WIDGET_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('dashboard_id', 'in', dashboardIds)
      .orderBy('position')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  },

  findWidget(tx: Tx, organizationId: string, dashboardId: string, id: string) {
    return tx
      .selectFrom('dashboard_widgets')
      .select(WIDGET_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('dashboard_id', '=', dashboardId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  async insertWidget(tx: Tx, organizationId: string, dashboardId: string, f: WidgetFields): Promise<string> {
    const next = await tx
      .selectFrom('dashboard_widgets')
      .select(sql<number>`coalesce(max(position) + 1, 0)`.as('next'))
      .where('organization_id', '=', organizationId)
      .where('dashboard_id', '=', dashboardId)
      .executeTakeFirstOrThrow();
    const created = await tx
      .insertInto('dashboard_widgets')
      .values({
        organization_id: organizationId,
        dashboard_id: dashboardId,
        type: f.type,
        title: f.title,
        indicator_ids: f.indicatorIds,
        config: json(f.config),
        position: Number(next.next),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return created.id;
  },

  async updateWidget(tx: Tx, organizationId: string, id: string, f: WidgetFields): Promise<void> {
    await tx
      .updateTable('dashboard_widgets')
      .set({
        type: f.type,
        title: f.title,
        indicator_ids: f.indicatorIds,
        config: json(f.config),
        updated_at: sql`now()`,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  async removeWidget(tx: Tx, organizationId: string, id: string): Promise<void> {
    await tx
      .deleteFrom('dashboard_widgets')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  /** The widgets naming any of these indicators, with their dashboard's name. */
  widgetsUsing(tx: Tx, organizationId: string, indicatorIds: string[]) {
    if (indicatorIds.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('dashboard_widgets as w')
      .innerJoin('dashboards as d', (join) =>
        join.onRef('d.organization_id', '=', 'w.organization_id').onRef('d.id', '=', 'w.dashboard_id'),
      )
      .select(['w.id', 'w.title', 'w.indicator_ids', 'd.id as dashboard_id', 'd.name as dashboard_name'])
      .where('w.organization_id', '=', organizationId)
      .where(sql<boolean>`w.indicator_ids && ${sql.val(indicatorIds)}::text[]`)
      .orderBy('d.name')
      .orderBy('w.position')
      .execute();
  },

  async existingIndicators(tx: Tx, organizationId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await tx
      .selectFrom('indicators')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
    return new Set(rows.map((r) => r.id));
  },

  indicators(tx: Tx, organizationId: string, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('indicators')
      .select(['id', 'name', 'label'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
  },

  async defaultStatuses(tx: Tx, organizationId: string): Promise<string[]> {
    const row = await tx
      .selectFrom('organizations')
      .select('default_statuses')
      .where('id', '=', organizationId)
      .executeTakeFirst();
    return row?.default_statuses ?? ['COMPLETED', 'APPROVED'];
  },
};

/** A dashboard as the repository reads it. */
export type DashboardRow = NonNullable<Awaited<ReturnType<typeof dashboardsRepository.find>>>;
/** A widget as the repository reads it. */
export type WidgetRow = NonNullable<Awaited<ReturnType<typeof dashboardsRepository.findWidget>>>;
