import { type RawBuilder, sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { PeriodType, ValueStatus } from '../../db/schema/index.ts';

/** The filters of the review queue, the caller's readable sites (null: all) and the keyset position. */
export interface QueueFilter {
  status?: ValueStatus;
  formId?: string;
  siteId?: string;
  year?: number;
  periodUnit?: number;
  /** null: every site of the organization. */
  siteIds: string[] | null;
}

/** A position in the queue: the recorded time (microseconds since 1970, exact) and the value id. */
export interface QueueKey {
  micros: string;
  id: string;
}

export interface QueueRow {
  id: string;
  element_id: string;
  period_unit: number;
  timestamp: Date | null;
  value: unknown;
  original_value: unknown;
  selected_unit_id: string | null;
  status: ValueStatus;
  user_id: string;
  recorded_at: Date;
  recorded_micros: string;
  site_id: string;
  year: number;
  activity_count: number;
  element_key: string;
  element_label: string;
  element_type: string;
  form_id: string;
  form_name: string;
  period_type: PeriodType;
  site_name: string;
  user_name: string;
  user_email: string;
  review_status: 'APPROVED' | 'REJECTED' | null;
  review_comment: string | null;
  review_at: Date | null;
  reviewer_name: string | null;
  media_id: string | null;
  file_name: string | null;
  file_size: string | number | null;
  content_type: string | null;
}

/** A value locked for a bulk review, with what the rejection e-mail names. */
export interface ReviewRow {
  id: string;
  status: ValueStatus;
  value: unknown;
  original_value: unknown;
  selected_unit_id: string | null;
  user_id: string;
  site_id: string;
  year: number;
  period_unit: number;
  element_label: string;
  element_type: string;
  element_options: { label: string; value: string }[] | null;
  element_position: number;
  form_id: string;
  form_name: string;
  period_type: PeriodType;
  site_name: string;
  user_email: string;
  user_name: string;
  /** The recorder's language (users.locale): their rejection e-mail is written in it. */
  user_locale: string | null;
}

/**
 * The conditions on `v` (form_element_submissions) for a live value the app can show: of a live
 * element of a live form (the organization's few element ids, read once), not in a submission of a
 * deactivated form-site (usually none, read once), plus the filters. Written as conditions on `v`
 * alone, not joins, so the plan walks the queue index whatever the table statistics say: with joins
 * and statistics not yet gathered after a bulk load, PostgreSQL 15 joined every form-site to every
 * value (65 s for one page of 48,000 values).
 */
function conditions(org: string, f: QueueFilter): RawBuilder<unknown> {
  const form = f.formId ? sql`and f.id = ${f.formId}` : sql``;
  const parts = [
    sql`v.organization_id = ${org}`,
    sql`v.deleted_at is null`,
    sql`v.element_id = any(array(
          select e.id from form_elements e
            join forms f on f.organization_id = e.organization_id and f.id = e.form_id
           where e.organization_id = ${org} and e.deleted_at is null and f.deleted_at is null ${form}))`,
    sql`not (v.form_submission_id = any(array(
          select s.id from form_submissions s
            join form_sites fs on fs.organization_id = s.organization_id and fs.id = s.form_site_id
           where s.organization_id = ${org} and not fs.active)))`,
  ];
  if (f.status) parts.push(sql`v.status = ${f.status}`);
  if (f.siteId) parts.push(sql`v.site_id = ${f.siteId}`);
  if (f.year !== undefined) parts.push(sql`v.year = ${f.year}`);
  if (f.periodUnit !== undefined) parts.push(sql`v.period_unit = ${f.periodUnit}`);
  if (f.siteIds) parts.push(sql`v.site_id = any(${f.siteIds}::uuid[])`);
  return sql.join(parts, sql` and `);
}

/** The names of a value's element, form and site, by their keys. */
const NAMES = sql`
  join form_elements e on e.organization_id = v.organization_id and e.id = v.element_id
  join forms f on f.organization_id = e.organization_id and f.id = e.form_id
  join sites si on si.organization_id = v.organization_id and si.id = v.site_id
  join users u on u.id = v.user_id`;

/** The review queue and bulk reviews; every method takes the organization id. */
export const queueRepository = {
  /** One page of values, oldest recorded first (then by id), starting after `after`. */
  async page(tx: Tx, org: string, filter: QueueFilter, after: QueueKey | null, limit: number) {
    const keyset = after
      ? sql`and (v.recorded_at, v.id) > (timestamptz 'epoch' + ${after.micros}::bigint * interval '1 microsecond', ${after.id}::uuid)`
      : sql``;
    const result = await sql<QueueRow>`
      select v.id, v.element_id, v.period_unit, v.timestamp, v.value, v.original_value, v.selected_unit_id,
             v.status, v.user_id, v.recorded_at,
             (extract(epoch from v.recorded_at) * 1000000)::bigint::text as recorded_micros,
             v.site_id, v.year, v.activity_count,
             e.key as element_key, e.label as element_label, e.type as element_type,
             f.id as form_id, f.name as form_name, f.period_type, si.name as site_name,
             u.name as user_name, u.email as user_email,
             r.after->>'status' as review_status, r.comment as review_comment, r.at as review_at,
             ru.name as reviewer_name,
             m.id as media_id, m.file_name, m.size as file_size, m.content_type
        from (select v.id from form_element_submissions v
               where ${conditions(org, filter)} ${keyset}
               order by v.recorded_at, v.id
               limit ${limit}) page
        join form_element_submissions v on v.organization_id = ${org} and v.id = page.id
        ${NAMES}
        left join lateral (
          select h.after, h.comment, h.at, h.user_id from form_value_history h
           where h.organization_id = v.organization_id and h.value_id = v.id and h.action = 'REVIEW'
           order by h.seq desc limit 1) r on true
        left join users ru on ru.id = r.user_id
        left join media m on e.type = 'FILE' and m.organization_id = v.organization_id
              and m.id = case when v.value #>> '{}' ~* '^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$'
                              then (v.value #>> '{}')::uuid end
       order by v.recorded_at, v.id`.execute(tx);
    return result.rows;
  },

  /** How many values match the filters (all pages). */
  async count(tx: Tx, org: string, filter: QueueFilter): Promise<number> {
    const result = await sql<{ n: string }>`
      select count(*)::text as n from form_element_submissions v where ${conditions(org, filter)}`.execute(
      tx,
    );
    return Number(result.rows[0]?.n ?? 0);
  },

  /** The live values among `ids`, locked (in id order, so concurrent reviews queue instead of deadlocking). */
  async lockForReview(tx: Tx, org: string, ids: string[]): Promise<ReviewRow[]> {
    const result = await sql<ReviewRow>`
      select v.id, v.status, v.value, v.original_value, v.selected_unit_id, v.user_id, v.site_id,
             v.year, v.period_unit, e.label as element_label, e.type as element_type,
             e.options as element_options, e.position as element_position,
             f.id as form_id, f.name as form_name, f.period_type, si.name as site_name,
             u.email as user_email, u.name as user_name, u.locale as user_locale
        from form_element_submissions v
        ${NAMES}
       where ${conditions(org, { siteIds: null })} and v.id = any(${ids}::uuid[])
       order by v.id
         for update of v`.execute(tx);
    return result.rows;
  },

  /**
   * Serializes rejection e-mails per recipient (calls running at once see each other's log),
   * then answers how many each of `userIds` got since `since`.
   */
  async lockAndCountMails(tx: Tx, org: string, userIds: string[], since: Date): Promise<Map<string, number>> {
    const ids = [...new Set(userIds)].sort();
    for (const id of ids) {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`sdcs-review-mail:${org}:${id}`}, 0))`.execute(
        tx,
      );
    }
    if (ids.length === 0) return new Map();
    const result = await sql<{ user_id: string; n: string }>`
      select user_id, count(*)::text as n from review_mails
       where organization_id = ${org} and user_id = any(${ids}::uuid[]) and sent_at > ${since}
       group by user_id`.execute(tx);
    return new Map(result.rows.map((r) => [r.user_id, Number(r.n)]));
  },

  /** Records one rejection e-mail to `userId` listing `valueCount` values. */
  async logMail(tx: Tx, org: string, m: { userId: string; sentBy: string; valueCount: number; at: Date }) {
    await sql`insert into review_mails (organization_id, user_id, sent_by, value_count, sent_at)
              values (${org}, ${m.userId}, ${m.sentBy}, ${m.valueCount}, ${m.at})`.execute(tx);
  },
};
