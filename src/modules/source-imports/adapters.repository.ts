import { sql } from 'kysely';
import { json, type Tx } from '../../db/client.ts';

/** Adapter definitions and their immutable versions; every method takes the organization id. */
export const adaptersRepository = {
  list(tx: Tx, organizationId: string) {
    return tx
      .selectFrom('source_adapter_definitions')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('name')
      .orderBy('id')
      .execute();
  },

  find(tx: Tx, organizationId: string, id: string, lock = false) {
    let query = tx
      .selectFrom('source_adapter_definitions')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id);
    if (lock) query = query.forUpdate();
    return query.executeTakeFirst();
  },

  /** Versions of the definitions, oldest first (with their mappings when asked). */
  versions(tx: Tx, organizationId: string, definitionIds: string[]) {
    if (definitionIds.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('source_adapter_versions')
      .select(['definition_id', 'adapter_version', 'mapping', 'created_at'])
      .where('organization_id', '=', organizationId)
      .where('definition_id', 'in', definitionIds)
      .orderBy('created_at')
      .orderBy('adapter_version')
      .execute();
  },

  findVersion(tx: Tx, organizationId: string, definitionId: string, version: string) {
    return tx
      .selectFrom('source_adapter_versions')
      .select(['adapter_version', 'mapping'])
      .where('organization_id', '=', organizationId)
      .where('definition_id', '=', definitionId)
      .where('adapter_version', '=', version)
      .executeTakeFirst();
  },

  insert(
    tx: Tx,
    organizationId: string,
    fields: { name: string; description: string | null; version: string },
  ) {
    return tx
      .insertInto('source_adapter_definitions')
      .values({
        organization_id: organizationId,
        name: fields.name,
        description: fields.description,
        adapter_version: fields.version,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  },

  async update(
    tx: Tx,
    organizationId: string,
    id: string,
    fields: { name: string; description: string | null; version: string },
  ) {
    await tx
      .updateTable('source_adapter_definitions')
      .set({
        name: fields.name,
        description: fields.description,
        adapter_version: fields.version,
        updated_at: sql`now()`,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  /** Saves a version; saving a mapping already saved keeps its first record. */
  async addVersion(tx: Tx, organizationId: string, definitionId: string, version: string, mapping: unknown) {
    await tx
      .insertInto('source_adapter_versions')
      .values({
        organization_id: organizationId,
        definition_id: definitionId,
        adapter_version: version,
        mapping: json(mapping),
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  formExists(tx: Tx, organizationId: string, id: string) {
    return tx
      .selectFrom('forms')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  },
};
