import { type ExpressionBuilder, sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { DatasetsTable, DB } from '../../db/schema/index.ts';

type WithD = DB & { d: DatasetsTable };

/** The optional texts of a dataset. */
export interface DatasetFields {
  description: string | null;
  dataSource: string | null;
  version: string | null;
}

const DATASET_COLUMNS = [
  'd.id',
  'd.organization_id',
  'd.name',
  'd.description',
  'd.data_source',
  'd.version',
  'd.is_common',
  'd.licence',
  'd.link',
  'd.superseded_by',
  'd.created_at',
  'd.updated_at',
] as const;

/** Datasets the organization can read: its own and every common one. */
const readable = (organizationId: string) => (eb: ExpressionBuilder<WithD, 'd'>) =>
  eb.or([eb('d.organization_id', '=', organizationId), eb('d.is_common', '=', true)]);

const itemCount = (eb: ExpressionBuilder<WithD, 'd'>) =>
  eb
    .selectFrom('dataset_items as i')
    .select(sql<number>`count(*)::int`.as('n'))
    .whereRef('i.dataset_id', '=', 'd.id')
    .as('item_count');

/** Dataset rows; every method takes the caller's organization id. */
export const datasetsRepository = {
  list(tx: Tx, organizationId: string) {
    return tx
      .selectFrom('datasets as d')
      .select(DATASET_COLUMNS)
      .select(itemCount)
      .where(readable(organizationId))
      .orderBy('d.name')
      .orderBy('d.id')
      .execute();
  },

  /** A dataset the organization can read (own or common), or undefined. */
  find(tx: Tx, organizationId: string, id: string) {
    return tx
      .selectFrom('datasets as d')
      .select(DATASET_COLUMNS)
      .select(itemCount)
      .where('d.id', '=', id)
      .where(readable(organizationId))
      .executeTakeFirst();
  },

  /**
   * Locks one of the organization's own datasets for the rest of the transaction, so that
   * concurrent writes to its items (and so the (key, year) rule) are serialized.
   */
  async lock(tx: Tx, organizationId: string, id: string): Promise<void> {
    await tx
      .selectFrom('datasets')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .forUpdate()
      .execute();
  },

  insert(tx: Tx, organizationId: string, row: DatasetFields & { name: string; isCommon: boolean }) {
    return tx
      .insertInto('datasets')
      .values({
        organization_id: organizationId,
        name: row.name,
        description: row.description,
        data_source: row.dataSource,
        version: row.version,
        is_common: row.isCommon,
      })
      .returning(['id'])
      .executeTakeFirstOrThrow();
  },

  async update(
    tx: Tx,
    organizationId: string,
    id: string,
    changes: Partial<DatasetFields> & { name?: string; isCommon?: boolean },
  ): Promise<void> {
    await tx
      .updateTable('datasets')
      .set({
        ...(changes.name === undefined ? {} : { name: changes.name }),
        ...(changes.description === undefined ? {} : { description: changes.description }),
        ...(changes.dataSource === undefined ? {} : { data_source: changes.dataSource }),
        ...(changes.version === undefined ? {} : { version: changes.version }),
        ...(changes.isCommon === undefined ? {} : { is_common: changes.isCommon }),
        updated_at: sql`now()`,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  /** Marks the dataset as changed (its items were written). */
  async touch(tx: Tx, organizationId: string, id: string): Promise<void> {
    await datasetsRepository.update(tx, organizationId, id, {});
  },

  async remove(tx: Tx, organizationId: string, id: string): Promise<void> {
    await tx
      .deleteFrom('datasets')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },
};
