import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import { json } from '../../db/client.ts';
import { appendHistory } from '../../db/history.ts';
import type { DatasetItemAction, DatasetItemChangeSource } from '../../db/schema/index.ts';
import { chunks } from '../../lib/chunks.ts';

const RETURNED = [
  'id',
  'organization_id',
  'dataset_id',
  'name',
  'key',
  'value',
  'unit',
  'year',
  'description',
  'link',
  'metadata',
  'tags',
  'input_unit_id',
] as const;
const ITEM_COLUMNS = RETURNED.map((c) => `i.${c}` as const);

/** The writable fields of an item, as stored. */
export interface ItemFields {
  name: string;
  key: string;
  value: number;
  unit: string | null;
  year: number;
  description: string | null;
  link: string | null;
  metadata: Record<string, unknown>;
  tags: string[];
  input_unit_id: string | null;
}

export interface ItemRow extends ItemFields {
  id: string;
  organization_id: string | null;
  dataset_id: string;
}

export interface ListedRow {
  id: string;
  name: string;
  year: number;
  dataset_id: string;
  dataset_name: string;
  tags: string[];
  metadata: Record<string, unknown>;
  input_unit_id: string | null;
  key: string;
  value: number;
  unit: string | null;
}

export interface DatasetItemHistoryEntry {
  datasetId: string;
  itemId: string;
  action: DatasetItemAction;
  source: DatasetItemChangeSource;
  userId: string;
  before: unknown;
  after: unknown;
}

// Rows per multi-row statement: items travel as one JSON parameter, so larger chunks pay.
const ITEM_CHUNK = 5000;

/**
 * The item as the API shows it (the presenter `presentItem`), built in SQL from a row alias:
 * what history rows written by set-based statements store as before and after.
 */
function snapshot(alias: 'i' | 'x' | 'old') {
  return sql.raw(`jsonb_build_object(
    'id', ${alias}.id, 'name', ${alias}.name, 'description', ${alias}.description, 'link', ${alias}.link,
    'year', ${alias}.year, 'tags', to_jsonb(${alias}.tags),
    'data', jsonb_build_object('key', ${alias}.key, 'value', ${alias}.value, 'unit', ${alias}.unit),
    'metadata', ${alias}.metadata, 'inputUnitId', ${alias}.input_unit_id)`);
}

const toValues = (organizationId: string, datasetId: string, f: ItemFields) => ({
  organization_id: organizationId,
  dataset_id: datasetId,
  name: f.name,
  key: f.key,
  value: f.value,
  unit: f.unit,
  year: f.year,
  description: f.description,
  link: f.link,
  metadata: json(f.metadata),
  tags: f.tags,
  input_unit_id: f.input_unit_id,
});

/** Dataset item rows (and their history); every method takes the caller's organization id. */
export const datasetItemsRepository = {
  /**
   * Every item the organization can read, in one query and in a stable order: its own items
   * (through the (organization, dataset, key "C", year) index, already in order), then those of
   * other organizations' common datasets; within each, by dataset id, key (byte order, the same
   * on both engines) and year, which the unique (dataset, key, year) makes a total order.
   */
  async list(tx: Tx, organizationId: string) {
    const result = await sql<ListedRow>`
      select * from (
      select i.id, i.name, i.year, i.dataset_id, d.name as dataset_name, i.tags, i.metadata, i.input_unit_id,
             i.key, i.value, i.unit, 0 as common
        from dataset_items i
        join datasets d on d.organization_id = i.organization_id and d.id = i.dataset_id
       where i.organization_id = ${organizationId}
      union all
      select i.id, i.name, i.year, i.dataset_id, d.name, i.tags, i.metadata, i.input_unit_id,
             i.key, i.value, i.unit, 1 as common
        from datasets d
        join dataset_items i on i.dataset_id = d.id
       where d.is_common and d.organization_id is distinct from ${organizationId}
      ) listed
      order by common, dataset_id, key collate "C", year`.execute(tx);
    return result.rows;
  },

  /** An item the organization can read, with what decides who may change it. */
  find(tx: Tx, organizationId: string, id: string, forUpdate = false) {
    let query = tx
      .selectFrom('dataset_items as i')
      .innerJoin('datasets as d', 'd.id', 'i.dataset_id')
      .select(ITEM_COLUMNS)
      .select(['d.is_common'])
      .where('i.id', '=', id)
      .where((eb) => eb.or([eb('d.organization_id', '=', organizationId), eb('d.is_common', '=', true)]));
    // Locks the item row only (its dataset is locked by the caller, before).
    if (forUpdate) query = query.forUpdate('i');
    return query.executeTakeFirst() as Promise<(ItemRow & { is_common: boolean }) | undefined>;
  },

  /** The item of a dataset with this key and year, if any. */
  findByKeyYear(tx: Tx, organizationId: string, datasetId: string, key: string, year: number) {
    return tx
      .selectFrom('dataset_items')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('dataset_id', '=', datasetId)
      .where('key', '=', key)
      .where('year', '=', year)
      .executeTakeFirst();
  },

  /** All items of a dataset the organization can read, by key (byte order, as on every server) and year. */
  listForDataset(tx: Tx, organizationId: string, dataset: { id: string; organization_id: string | null }) {
    return (
      tx
        .selectFrom('dataset_items as i')
        .innerJoin('datasets as d', 'd.id', 'i.dataset_id')
        .select(ITEM_COLUMNS)
        // The organization's own items by the (organization, dataset, key, year) index; the library's have none.
        .where((eb) =>
          dataset.organization_id === null
            ? eb('i.organization_id', 'is', null)
            : eb('i.organization_id', '=', dataset.organization_id),
        )
        .where('i.dataset_id', '=', dataset.id)
        .where((eb) => eb.or([eb('d.organization_id', '=', organizationId), eb('d.is_common', '=', true)]))
        .orderBy(sql`i.key collate "C"`)
        .orderBy('i.year')
        .execute() as Promise<ItemRow[]>
    );
  },

  async insert(tx: Tx, organizationId: string, datasetId: string, f: ItemFields) {
    return (await tx
      .insertInto('dataset_items')
      .values(toValues(organizationId, datasetId, f))
      .returning(RETURNED)
      .executeTakeFirstOrThrow()) as ItemRow;
  },

  update(tx: Tx, organizationId: string, id: string, f: ItemFields) {
    const { organization_id: _o, dataset_id: _d, ...values } = toValues(organizationId, '', f);
    return tx
      .updateTable('dataset_items')
      .set({ ...values, updated_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning(RETURNED)
      .executeTakeFirstOrThrow() as Promise<ItemRow>;
  },

  /**
   * Inserts many items of one dataset and records their creation in the history: one
   * statement per few thousand rows (the rows travel as one jsonb parameter).
   */
  async insertMany(tx: Tx, organizationId: string, datasetId: string, userId: string, items: ItemFields[]) {
    for (const part of chunks(items, ITEM_CHUNK)) {
      await sql`
        with v as (
          select * from jsonb_to_recordset(${JSON.stringify(part)}::jsonb) as v(
            name text, key text, value double precision, unit text, year integer, description text,
            link text, metadata jsonb, tags text[], input_unit_id uuid)
        ), x as (
          insert into dataset_items (organization_id, dataset_id, name, key, value, unit, year, description,
                                     link, metadata, tags, input_unit_id)
          select ${organizationId}, ${datasetId}, name, key, value, unit, year, description, link, metadata,
                 tags, input_unit_id
            from v
          returning *
        )
        insert into dataset_item_history (organization_id, dataset_id, item_id, action, source, user_id, before, after)
        select x.organization_id, x.dataset_id, x.id, 'create', 'import', ${userId}, null, ${snapshot('x')}
          from x`.execute(tx);
    }
  },

  /** Rewrites many items (the fields a CSV carries) and records each change in the history. */
  async updateMany(
    tx: Tx,
    organizationId: string,
    userId: string,
    items: Array<ItemFields & { id: string }>,
  ) {
    for (const part of chunks(items, ITEM_CHUNK)) {
      await sql`
        with v as (
          select * from jsonb_to_recordset(${JSON.stringify(part)}::jsonb) as v(
            id uuid, name text, value double precision, unit text, metadata jsonb, input_unit_id uuid)
        ), old as (
          select i.* from dataset_items i join v on v.id = i.id where i.organization_id = ${organizationId}
        ), x as (
          update dataset_items as i
             set name = v.name, value = v.value, unit = v.unit, metadata = v.metadata,
                 input_unit_id = v.input_unit_id, updated_at = now()
            from v
           where i.organization_id = ${organizationId} and i.id = v.id
          returning i.*
        )
        insert into dataset_item_history (organization_id, dataset_id, item_id, action, source, user_id, before, after)
        select x.organization_id, x.dataset_id, x.id, 'update', 'import', ${userId}, ${snapshot('old')}, ${snapshot('x')}
          from x join old on old.id = x.id`.execute(tx);
    }
  },

  remove(tx: Tx, organizationId: string, id: string) {
    return tx
      .deleteFrom('dataset_items')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning(RETURNED)
      .executeTakeFirst() as Promise<ItemRow | undefined>;
  },

  async appendHistory(tx: Tx, organizationId: string, entries: DatasetItemHistoryEntry[]): Promise<void> {
    await appendHistory(
      tx,
      'dataset_item_history',
      entries.map((e) => ({
        organization_id: organizationId,
        dataset_id: e.datasetId,
        item_id: e.itemId,
        action: e.action,
        source: e.source,
        user_id: e.userId,
        before: e.before,
        after: e.after,
      })),
      ITEM_CHUNK,
    );
  },

  /** Records the deletion of every item of a dataset that is about to be deleted: one statement. */
  async appendDatasetDeletion(tx: Tx, organizationId: string, datasetId: string, userId: string) {
    await sql`
      insert into dataset_item_history (organization_id, dataset_id, item_id, action, source, user_id, before, after)
      select i.organization_id, i.dataset_id, i.id, 'delete', 'dataset-delete', ${userId}, ${snapshot('i')},
             null
        from dataset_items i
       where i.organization_id = ${organizationId} and i.dataset_id = ${datasetId}`.execute(tx);
  },

  /** The changes of one item the organization can read, oldest first. */
  history(tx: Tx, organizationId: string, itemId: string) {
    return tx
      .selectFrom('dataset_item_history as h')
      .leftJoin('users as u', 'u.id', 'h.user_id')
      .select([
        'h.id',
        'h.item_id',
        'h.dataset_id',
        'h.action',
        'h.source',
        'h.user_id',
        'u.name as user_name',
        'u.email as user_email',
        'h.changed_at',
        'h.before',
        'h.after',
      ])
      .where('h.item_id', '=', itemId)
      .where((eb) =>
        eb.or([
          eb('h.organization_id', '=', organizationId),
          eb('h.dataset_id', 'in', eb.selectFrom('datasets').select('id').where('is_common', '=', true)),
        ]),
      )
      .orderBy('h.seq')
      .execute();
  },
};
