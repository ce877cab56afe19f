import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { PeriodType } from '../../db/schema/index.ts';

/** A (form, site, year, period) to look up locks for; `period: null` matches any period of the year. */
export interface LockQuery {
  formId: string;
  siteId: string;
  year: number;
  period: number | null;
}

export interface LockRow {
  id: string;
  form_id: string;
  year: number;
  period_unit: number | null;
  site_id: string | null;
  site_name: string | null;
  created_by: string;
  created_by_name: string;
  created_at: Date;
  unlocked_by: string | null;
  unlocked_by_name: string | null;
  unlocked_at: Date | null;
}

const SELECT_LOCKS = sql`
  select l.id, l.form_id, l.year, l.period_unit, l.site_id, s.name as site_name,
         l.created_by, coalesce(nullif(c.name, ''), c.email) as created_by_name, l.created_at,
         l.unlocked_by, coalesce(nullif(un.name, ''), un.email) as unlocked_by_name, l.unlocked_at
    from form_locks l
    join users c on c.id = l.created_by
    left join users un on un.id = l.unlocked_by
    left join sites s on s.organization_id = l.organization_id and s.id = l.site_id`;

/** Form locks of one organization; every method takes the organization id. */
export const formLocksRepository = {
  /**
   * Locks (form, year, period) on each site (null: every site); a scope already locked keeps its
   * lock. Answers the live locks of the scopes, new or not, and the ids of those this call made.
   */
  async lock(
    tx: Tx,
    org: string,
    input: { formId: string; year: number; periodUnit: number | null; siteIds: (string | null)[] },
    userId: string,
  ): Promise<{ rows: LockRow[]; created: Set<string> }> {
    const inserted = await sql<{ id: string }>`
      insert into form_locks (organization_id, form_id, year, period_unit, site_id, created_by)
      select ${org}, ${input.formId}, ${input.year}, ${input.periodUnit}::smallint, site_id, ${userId}
        from unnest(${input.siteIds}::uuid[]) as t(site_id)
      on conflict (organization_id, form_id, year, period_unit, site_id) where unlocked_at is null do nothing
      returning id`.execute(tx);
    const result = await sql<LockRow>`${SELECT_LOCKS}
      where l.organization_id = ${org} and l.form_id = ${input.formId} and l.year = ${input.year}
        and l.period_unit is not distinct from ${input.periodUnit}::smallint and l.unlocked_at is null
        and (l.site_id = any(${input.siteIds}::uuid[]) or (l.site_id is null and ${input.siteIds.includes(null)}))
      order by s.name nulls first, l.id`.execute(tx);
    return { rows: result.rows, created: new Set(inserted.rows.map((r) => r.id)) };
  },

  async find(tx: Tx, org: string, id: string): Promise<LockRow | undefined> {
    const result = await sql<LockRow>`${SELECT_LOCKS}
      where l.organization_id = ${org} and l.id = ${id} for update of l`.execute(tx);
    return result.rows[0];
  },

  async unlock(tx: Tx, org: string, id: string, userId: string) {
    await tx
      .updateTable('form_locks')
      .set({ unlocked_by: userId, unlocked_at: sql`now()` })
      .where('organization_id', '=', org)
      .where('id', '=', id)
      .execute();
  },

  async list(tx: Tx, org: string, formId: string, includeUnlocked: boolean): Promise<LockRow[]> {
    const result = await sql<LockRow>`${SELECT_LOCKS}
      where l.organization_id = ${org} and l.form_id = ${formId}
        ${includeUnlocked ? sql`` : sql`and l.unlocked_at is null`}
      order by l.year desc, l.period_unit nulls first, s.name nulls first, l.created_at, l.id`.execute(tx);
    return result.rows;
  },
  /**
   * For each slot (form, site, year, and a period or `null` for any period of the year) that a
   * live lock covers, its first lock (by creation) with the names a refusal shows; one query.
   * `idx` counts the slots from 1.
   */
  async covering(tx: Tx, organizationId: string, slots: readonly LockQuery[]) {
    const result = await sql<{
      idx: string;
      id: string;
      period_unit: number | null;
      site_id: string | null;
      created_at: Date;
      user_name: string;
      form_name: string;
      period_type: PeriodType;
      site_name: string | null;
    }>`
      select distinct on (s.idx) s.idx, l.id, l.period_unit, l.site_id, l.created_at,
             coalesce(nullif(u.name, ''), u.email) as user_name, f.name as form_name, f.period_type,
             st.name as site_name
        from unnest(${slots.map((s) => s.formId)}::uuid[], ${slots.map((s) => s.siteId)}::uuid[],
                    ${slots.map((s) => s.year)}::int[], ${slots.map((s) => s.period)}::int[])
             with ordinality as s(form_id, site_id, year, period, idx)
        join form_locks l
          on l.organization_id = ${organizationId} and l.form_id = s.form_id and l.year = s.year
         and l.unlocked_at is null
         and (l.period_unit is null or s.period is null or l.period_unit = s.period)
         and (l.site_id is null or l.site_id = s.site_id)
        join forms f on f.organization_id = l.organization_id and f.id = l.form_id
        join users u on u.id = l.created_by
        left join sites st on st.organization_id = l.organization_id and st.id = s.site_id
       order by s.idx, l.created_at, l.id`.execute(tx);
    return result.rows;
  },

  /** The activities among `ids` whose (form, site, year, period) a live lock covers; one query. */
  async coveredActivities(tx: Tx, organizationId: string, ids: readonly string[]): Promise<string[]> {
    const result = await sql<{ id: string }>`
      select a.id
        from activities a
        join form_elements e on e.organization_id = a.organization_id and e.id = a.element_id
       where a.organization_id = ${organizationId} and a.id = any(${ids}::uuid[])
         and exists (
           select 1 from form_locks l
            where l.organization_id = a.organization_id and l.form_id = e.form_id and l.year = a.year
              and l.unlocked_at is null
              and (l.period_unit is null or l.period_unit = a.period_unit)
              and (l.site_id is null or l.site_id = a.site_id))`.execute(tx);
    return result.rows.map((r) => r.id);
  },
};
