import { sql } from 'kysely';
import { json, type Tx } from '../../db/client.ts';
import type { TargetEntry } from './targets.schemas.ts';

const COLUMNS = [
  'id',
  'organization_id',
  'indicator_id',
  'title',
  'baseline_year',
  'baseline_month',
  'baseline_quarter',
  'metadata',
  'target_entries',
  'created_at',
  'updated_at',
] as const;

export interface TargetFields {
  title: string;
  baselineYear: number | null;
  baselineMonth: number | null;
  baselineQuarter: number | null;
  metadata: Record<string, unknown>;
  targetEntries: TargetEntry[];
}

const row = (f: TargetFields) => ({
  title: f.title,
  baseline_year: f.baselineYear,
  baseline_month: f.baselineMonth,
  baseline_quarter: f.baselineQuarter,
  metadata: json(f.metadata),
  target_entries: json(f.targetEntries),
});

/** Targets of one organization; every method takes the organization id. */
export const targetsRepository = {
  list(tx: Tx, organizationId: string, indicatorId: string | null) {
    let query = tx.selectFrom('targets').select(COLUMNS).where('organization_id', '=', organizationId);
    if (indicatorId) query = query.where('indicator_id', '=', indicatorId);
    return query.orderBy('created_at').orderBy('id').execute();
  },

  find(tx: Tx, organizationId: string, id: string) {
    return tx
      .selectFrom('targets')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  async insert(tx: Tx, organizationId: string, indicatorId: string, fields: TargetFields): Promise<string> {
    const created = await tx
      .insertInto('targets')
      .values({ organization_id: organizationId, indicator_id: indicatorId, ...row(fields) })
      .returning('id')
      .executeTakeFirstOrThrow();
    return created.id;
  },

  async update(tx: Tx, organizationId: string, id: string, fields: TargetFields): Promise<void> {
    await tx
      .updateTable('targets')
      .set({ ...row(fields), updated_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  async remove(tx: Tx, organizationId: string, id: string): Promise<void> {
    await tx
      .deleteFrom('targets')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  async indicatorExists(tx: Tx, organizationId: string, id: string): Promise<boolean> {
    const found = await tx
      .selectFrom('indicators')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return found !== undefined;
  },
};
