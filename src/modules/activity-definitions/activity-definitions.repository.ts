import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import { json, type Tx } from '../../db/client.ts';
import type { ActivityDefinitionsTable, ActivityInputDefinition, DB } from '../../db/schema/index.ts';

export type DefinitionRow = Selectable<ActivityDefinitionsTable>;

/** The editable fields, as stored. */
export interface DefinitionFields {
  name: string;
  description: string | null;
  uiCode: string;
  calcCode: string;
  inputs: ActivityInputDefinition[];
  metadataSchema: Record<string, unknown> | null;
  isCommon: boolean;
  /** The unit calcCode returns (null: none). */
  unitId: string | null;
}

/** The organization's own definitions and every common one (row-level security says the same). */
const visibleTo = (organizationId: string) => (eb: ExpressionBuilder<DB, 'activity_definitions'>) =>
  eb.or([eb('organization_id', '=', organizationId), eb('is_common', '=', true)]);

const columns = (fields: DefinitionFields) => ({
  name: fields.name,
  description: fields.description,
  ui_code: fields.uiCode,
  calc_code: fields.calcCode,
  inputs: json(fields.inputs),
  metadata_schema: fields.metadataSchema === null ? null : json(fields.metadataSchema),
  is_common: fields.isCommon,
  unit_id: fields.unitId,
});

/** Activity definition rows; every method takes the caller's organization id. */
export const activityDefinitionsRepository = {
  listVisible(tx: Tx, organizationId: string) {
    return tx
      .selectFrom('activity_definitions')
      .selectAll()
      .where(visibleTo(organizationId))
      .orderBy('name')
      .orderBy('id')
      .execute();
  },

  findVisible(tx: Tx, organizationId: string, id: string, forUpdate = false) {
    const query = tx
      .selectFrom('activity_definitions')
      .selectAll()
      .where('id', '=', id)
      .where(visibleTo(organizationId));
    return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
  },

  /** The organization's keys equal to `base` or of the form `base-…`. */
  async keysLike(tx: Tx, organizationId: string, base: string): Promise<Set<string>> {
    const rows = await tx
      .selectFrom('activity_definitions')
      .select('key')
      .where('organization_id', '=', organizationId)
      .where((eb) =>
        eb.or([eb('key', '=', base), eb(eb.fn('starts_with', ['key', eb.val(`${base}-`)]), '=', true)]),
      )
      .execute();
    return new Set(rows.map((r) => r.key));
  },

  insert(tx: Tx, organizationId: string, key: string, fields: DefinitionFields) {
    return tx
      .insertInto('activity_definitions')
      .values({ organization_id: organizationId, key, ...columns(fields) })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  update(tx: Tx, organizationId: string, id: string, fields: DefinitionFields) {
    return tx
      .updateTable('activity_definitions')
      .set({ ...columns(fields), updated_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  remove(tx: Tx, organizationId: string, id: string) {
    return tx
      .deleteFrom('activity_definitions')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },
};
