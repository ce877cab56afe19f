import { type RawBuilder, sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { SiteScope } from '../access/index.ts';

/** What one completeness reading covers: a form's year on some sites and periods. */
export interface CompletenessScope {
  formId: string;
  year: number;
  /** The periods asked for, each with its due time (null: no due date). */
  periods: { periodUnit: number; dueAt: Date | null }[];
  /** The expected elements: ACTIVITY ones also count with activities or a no-activity marker. */
  plainElementIds: string[];
  activityElementIds: string[];
  siteIds: string[] | null;
  scope: SiteScope;
  now: Date;
}

export interface CellRow {
  site_id: string;
  site_name: string;
  period_unit: number;
  due_at: Date | null;
  reported: number;
  reported_element_ids: string[];
  last_reported_at: Date | null;
  status: 'COMPLETE' | 'PARTIAL' | 'MISSING' | 'NO_ACTIVITY';
  on_time: boolean;
  overdue: boolean;
  locked: boolean;
}

export interface TotalsRow {
  sites: number;
  expected_reports: number;
  actual_reports: number;
  on_time_reports: number;
  complete: number;
  partial: number;
  missing: number;
  no_activity: number;
  overdue: number;
}

/** Site name order of the API (case-insensitive, then byte order: the same on both engines). */
const BY_SITE_NAME = sql`lower(s.name) collate "C", s.name collate "C", fs.site_id`;

/**
 * The cells (active site × period) of the scope with their status, as one SQL statement:
 * `scoped` selects the form-sites (all of the scope, or one page of them); `reports` finds per
 * site, period and expected element when it was first and last reported: a value that is not
 * REJECTED (for an ACTIVITY element, a non-empty list, i.e. activities), or a no-activity marker
 * (the service never keeps both for one period); `per_cell` sums them per site and period,
 * `cell` crosses the sites with the periods, and `judged` decides status, on-time and overdue.
 */
export function cellsQuery(
  org: string,
  q: CompletenessScope,
  page: { limit: number; offset: number } | null,
  detail = true,
) {
  const expected = q.plainElementIds.length + q.activityElementIds.length;
  const conditions: RawBuilder<unknown>[] = [];
  if (!q.scope.all) conditions.push(sql`fs.site_id = any(${[...q.scope.siteIds]}::uuid[])`);
  if (q.siteIds) conditions.push(sql`fs.site_id = any(${q.siteIds}::uuid[])`);
  const where = conditions.length > 0 ? sql`and ${sql.join(conditions, sql` and `)}` : sql``;
  const paging = page ? sql`order by ${BY_SITE_NAME} limit ${page.limit} offset ${page.offset}` : sql``;
  const units = q.periods.map((p) => p.periodUnit);
  const elementIds = [...q.plainElementIds, ...q.activityElementIds];
  const dues = q.periods.map((p) => (p.dueAt ? p.dueAt.toISOString() : null));
  return sql`
    with scoped as (
      select fs.id as form_site_id, fs.site_id, s.name as site_name
        from form_sites fs
        join sites s on s.organization_id = fs.organization_id and s.id = fs.site_id
       where fs.organization_id = ${org} and fs.form_id = ${q.formId} and fs.year = ${q.year}
         and fs.active ${where}
       ${paging}
    ),
    periods as (
      select * from unnest(${units}::int[], ${dues}::timestamptz[]) as p(period_unit, due_at)
    ),
    reports as (
      select sub.form_site_id, v.period_unit, v.element_id,
             min(v.created_at) as first_at, max(v.recorded_at) as last_at, false as marker
        from scoped
        join form_submissions sub on sub.organization_id = ${org} and sub.form_site_id = scoped.form_site_id
        join form_element_submissions v on v.organization_id = ${org} and v.form_submission_id = sub.id
       where v.element_id = any(${elementIds}::uuid[])
         and v.period_unit = any(${units}::int[])
         and v.deleted_at is null and v.status <> 'REJECTED'
         and (v.element_id <> all(${q.activityElementIds}::uuid[]) or v.value <> '[]'::jsonb)
       group by sub.form_site_id, v.period_unit, v.element_id
      union all
      select scoped.form_site_id, m.period_unit, m.element_id, m.created_at, m.created_at, true
        from no_activity_markers m
        join scoped on scoped.site_id = m.site_id
       where m.organization_id = ${org} and m.form_id = ${q.formId} and m.year = ${q.year}
         and m.element_id = any(${q.activityElementIds}::uuid[])
         and m.period_unit = any(${units}::int[])
    ),
    per_cell as (
      select form_site_id, period_unit, count(*)::int as reported,
             ${detail ? sql`array_agg(element_id::text)` : sql`null::text[]`} as reported_element_ids,
             max(first_at) as completed_at, max(last_at) as last_reported_at,
             bool_and(marker) as only_markers
        from reports
       group by form_site_id, period_unit
    ),
    cell as (
      select scoped.site_id, scoped.site_name, p.period_unit, p.due_at,
             coalesce(pc.reported, 0) as reported,
             coalesce(pc.reported_element_ids, '{}'::text[]) as reported_element_ids,
             pc.completed_at, pc.last_reported_at, coalesce(pc.only_markers, false) as only_markers
        from scoped
       cross join periods p
        left join per_cell pc on pc.form_site_id = scoped.form_site_id and pc.period_unit = p.period_unit
    ),
    judged as (
      select c.*,
             case when c.reported = 0 or ${expected}::int = 0 then 'MISSING'
                  when c.reported < ${expected}::int then 'PARTIAL'
                  when c.only_markers then 'NO_ACTIVITY'
                  else 'COMPLETE' end as status
        from cell c
    )
    select j.site_id, j.site_name, j.period_unit, j.due_at, j.reported, j.reported_element_ids,
           j.last_reported_at, j.status,
           (j.status in ('COMPLETE', 'NO_ACTIVITY') and (j.due_at is null or j.completed_at <= j.due_at)) as on_time,
           (j.status in ('MISSING', 'PARTIAL') and j.due_at is not null and j.due_at < ${q.now.toISOString()}::timestamptz) as overdue,
           ${
             detail
               ? sql`exists (select 1 from form_locks l
                    where l.organization_id = ${org} and l.form_id = ${q.formId} and l.year = ${q.year}
                      and l.unlocked_at is null
                      and (l.period_unit is null or l.period_unit = j.period_unit)
                      and (l.site_id is null or l.site_id = j.site_id))`
               : sql`false`
           } as locked
      from judged j`;
}

/** Reads for GET /completeness and its reminders; every method takes the organization id. */
export const completenessRepository = {
  /** The cells of one page of sites (by site name), every period of each. */
  async page(tx: Tx, org: string, q: CompletenessScope, page: { limit: number; offset: number }) {
    const result = await sql<CellRow>`
      select * from (${cellsQuery(org, q, page)}) c
       order by lower(c.site_name) collate "C", c.site_name collate "C", c.site_id, c.period_unit`.execute(
      tx,
    );
    return result.rows;
  },

  /** Every cell of the scope (reminders: one period, a bounded set of sites). */
  async cells(tx: Tx, org: string, q: CompletenessScope) {
    const result = await sql<CellRow>`select * from (${cellsQuery(org, q, null)}) c`.execute(tx);
    return result.rows;
  },

  /** The totals over every cell of the scope, and how many sites it has. */
  async totals(tx: Tx, org: string, q: CompletenessScope): Promise<TotalsRow> {
    const result = await sql<TotalsRow>`
      select count(distinct c.site_id)::int as sites,
             count(*)::int as expected_reports,
             count(*) filter (where c.status in ('COMPLETE', 'NO_ACTIVITY'))::int as actual_reports,
             count(*) filter (where c.on_time)::int as on_time_reports,
             count(*) filter (where c.status = 'COMPLETE')::int as complete,
             count(*) filter (where c.status = 'PARTIAL')::int as partial,
             count(*) filter (where c.status = 'MISSING')::int as missing,
             count(*) filter (where c.status = 'NO_ACTIVITY')::int as no_activity,
             count(*) filter (where c.overdue)::int as overdue
        from (${cellsQuery(org, q, null, false)}) c`.execute(tx);
    return result.rows[0]!;
  },

  /** The collectors assigned (directly or through an ancestor) to each of the sites. */
  async collectors(tx: Tx, org: string, siteIds: string[]) {
    if (siteIds.length === 0) return [];
    const result = await sql<{
      site_id: string;
      user_id: string;
      email: string;
      name: string;
      locale: string | null;
    }>`
      with recursive up(site_id, ancestor_id) as (
        select id, id from sites where organization_id = ${org} and id = any(${siteIds}::uuid[])
        union
        select up.site_id, s.parent_id from up
          join sites s on s.organization_id = ${org} and s.id = up.ancestor_id
         where s.parent_id is not null
      )
      select distinct up.site_id, u.id as user_id, u.email, u.name, u.locale
        from up
        join membership_sites ms on ms.organization_id = ${org} and ms.site_id = up.ancestor_id
        join memberships m on m.organization_id = ms.organization_id and m.user_id = ms.user_id
        join users u on u.id = m.user_id
       where m.role = 'COLLECTOR' and m.status = 'active'
       order by u.email, up.site_id`.execute(tx);
    return result.rows;
  },

  /**
   * Takes a transaction lock per person (in id order, so two calls never wait on each other in
   * a circle): a second reminder call for the same people waits for the first to commit and then
   * sees its log, so nobody is mailed twice by calls running at once.
   */
  async lockRecipients(tx: Tx, org: string, userIds: string[]): Promise<void> {
    for (const id of [...new Set(userIds)].sort()) {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`sdcs-reminder:${org}:${id}`}, 0))`.execute(
        tx,
      );
    }
  },

  /** How many distinct form periods each of `userIds` was reminded of since `since`. */
  async reminderCountsSince(
    tx: Tx,
    org: string,
    userIds: string[],
    since: Date,
  ): Promise<Map<string, number>> {
    if (userIds.length === 0) return new Map();
    const result = await sql<{ user_id: string; n: string }>`
      select user_id, count(distinct (form_id, year, period_unit))::text as n
        from completeness_reminders
       where organization_id = ${org} and user_id = any(${userIds}::uuid[]) and sent_at > ${since}
       group by user_id`.execute(tx);
    return new Map(result.rows.map((r) => [r.user_id, Number(r.n)]));
  },

  /** The people among `userIds` already reminded of the form's period since `since`. */
  async remindedSince(tx: Tx, org: string, formId: string, year: number, periodUnit: number, since: Date) {
    const rows = await tx
      .selectFrom('completeness_reminders')
      .select('user_id')
      .distinct()
      .where('organization_id', '=', org)
      .where('form_id', '=', formId)
      .where('year', '=', year)
      .where('period_unit', '=', periodUnit)
      .where('sent_at', '>', since)
      .execute();
    return new Set(rows.map((r) => r.user_id));
  },

  async logReminders(
    tx: Tx,
    org: string,
    rows: { formId: string; year: number; periodUnit: number; siteId: string; userId: string }[],
    sentBy: string,
    sentAt: Date,
  ) {
    if (rows.length === 0) return;
    await tx
      .insertInto('completeness_reminders')
      .values(
        rows.map((r) => ({
          organization_id: org,
          form_id: r.formId,
          year: r.year,
          period_unit: r.periodUnit,
          site_id: r.siteId,
          user_id: r.userId,
          sent_by: sentBy,
          sent_at: sentAt,
        })),
      )
      .execute();
  },
};
