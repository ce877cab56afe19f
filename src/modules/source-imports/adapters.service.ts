import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { badRequest, type Issue, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { isUuid } from '../../lib/ids.ts';
import { adaptersRepository as repo } from './adapters.repository.ts';
import type { AdapterBody, AdapterDefinition, Mapping } from './adapters.schemas.ts';
import { canonicalHash } from './canonical.ts';

type DefinitionRow = NonNullable<Awaited<ReturnType<typeof repo.find>>>;

/**
 * The rules the schema cannot state: which fields each draft kind needs or refuses, distinct
 * sheet names, and forms named by id that exist. Each problem names its path in the body.
 */
async function mappingIssues(tx: Tx, organizationId: string, mapping: Mapping): Promise<Issue[]> {
  const issues: Issue[] = [];
  const issue = (path: string, message: string) => issues.push({ path, message: `${path} ${message}` });
  const seen = new Map<string, number>();
  for (const [i, sheet] of mapping.sheets.entries()) {
    const p = `mapping.sheets.${i}`;
    const earlier = seen.get(sheet.sheet);
    if (earlier !== undefined) issue(`${p}.sheet`, `repeats the sheet of mapping.sheets.${earlier}`);
    seen.set(sheet.sheet, i);
    const need = (field: keyof typeof sheet) => {
      if (sheet[field] === undefined) issue(`${p}.${field}`, `is required for ${sheet.draft} drafts`);
    };
    const refuse = (field: keyof typeof sheet) => {
      if (sheet[field] !== undefined) issue(`${p}.${field}`, `is not allowed for ${sheet.draft} drafts`);
    };
    if (sheet.draft === 'form_value') {
      need('element');
      need('value');
      refuse('activity');
      refuse('inputs');
    } else {
      need('activity');
      need('inputs');
      refuse('element');
      refuse('value');
      refuse('unit');
      refuse('reduce');
    }
    if (
      'id' in sheet.form &&
      !(isUuid(sheet.form.id) && (await repo.formExists(tx, organizationId, sheet.form.id)))
    ) {
      issue(`${p}.form.id`, 'is not a form of this organization');
    }
  }
  return issues;
}

async function present(tx: Tx, organizationId: string, rows: DefinitionRow[]): Promise<AdapterDefinition[]> {
  const versions = await repo.versions(
    tx,
    organizationId,
    rows.map((r) => r.id),
  );
  return rows.map((row) => {
    const own = versions.filter((v) => v.definition_id === row.id);
    // Saved with its definition, checked against the Mapping schema then: always there.
    const current = own.find((v) => v.adapter_version === row.adapter_version);
    if (!current) throw new Error(`source adapter ${row.id} has no version ${row.adapter_version}`);
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      mapping: current.mapping as Mapping,
      adapterVersion: row.adapter_version,
      versions: own.map((v) => ({ adapterVersion: v.adapter_version, createdAt: iso(v.created_at) })),
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
    };
  });
}

async function checked(tx: Tx, caller: Caller, body: AdapterBody) {
  const issues = await mappingIssues(tx, caller.organizationId, body.mapping);
  if (issues.length > 0) throw badRequest('The mapping is not valid', issues);
  return { name: body.name, description: body.description ?? null, version: canonicalHash(body.mapping) };
}

export async function listAdapters(tx: Tx, caller: Caller): Promise<AdapterDefinition[]> {
  return present(tx, caller.organizationId, await repo.list(tx, caller.organizationId));
}

export async function getAdapter(tx: Tx, caller: Caller, id: string): Promise<AdapterDefinition> {
  const row = isUuid(id) ? await repo.find(tx, caller.organizationId, id) : undefined;
  if (!row) throw notFound('Source adapter definition');
  return (await present(tx, caller.organizationId, [row]))[0]!;
}

/** Creates a definition with its first version. */
export async function createAdapter(tx: Tx, caller: Caller, body: AdapterBody): Promise<AdapterDefinition> {
  const org = caller.organizationId;
  const fields = await checked(tx, caller, body);
  const { id } = await repo.insert(tx, org, fields);
  await repo.addVersion(tx, org, id, fields.version, body.mapping);
  return getAdapter(tx, caller, id);
}

/** Replaces name, description and mapping; a new mapping becomes a new version, earlier ones stay. */
export async function updateAdapter(
  tx: Tx,
  caller: Caller,
  id: string,
  body: AdapterBody,
): Promise<AdapterDefinition> {
  const org = caller.organizationId;
  const row = isUuid(id) ? await repo.find(tx, org, id, true) : undefined;
  if (!row) throw notFound('Source adapter definition');
  const fields = await checked(tx, caller, body);
  await repo.addVersion(tx, org, id, fields.version, body.mapping);
  await repo.update(tx, org, id, fields);
  return getAdapter(tx, caller, id);
}
