import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, badRequest, type Issue, notFound } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { coversOrganization } from '../access/index.ts';
import { adaptersRepository as repo } from './adapters.repository.ts';
import type { AdapterBody, AdapterDefinition, Mapping } from './adapters.schemas.ts';
import { canonicalHash } from './canonical.ts';
import { type AdapterRow, presentAdapter } from './source-imports.present.ts';

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

/** The definitions of `rows` with their versions (one query for all). */
async function withVersions(
  tx: Tx,
  organizationId: string,
  rows: AdapterRow[],
): Promise<AdapterDefinition[]> {
  const versions = await repo.versions(
    tx,
    organizationId,
    rows.map((r) => r.id),
  );
  return rows.map((row) =>
    presentAdapter(
      row,
      versions.filter((v) => v.definition_id === row.id),
    ),
  );
}

async function checked(tx: Tx, caller: Caller, body: AdapterBody) {
  const issues = await mappingIssues(tx, caller.organizationId, body.mapping);
  if (issues.length > 0) throw badRequest('The mapping is not valid', issues);
  return { name: body.name, description: body.description ?? null, version: canonicalHash(body.mapping) };
}

export async function listAdapters(tx: Tx, caller: Caller): Promise<AdapterDefinition[]> {
  return withVersions(tx, caller.organizationId, await repo.list(tx, caller.organizationId));
}

export async function getAdapter(tx: Tx, caller: Caller, id: string): Promise<AdapterDefinition> {
  const row = isUuid(id) ? await repo.find(tx, caller.organizationId, id) : undefined;
  if (!row) throw notFound('Source adapter definition');
  return (await withVersions(tx, caller.organizationId, [row]))[0]!;
}

export const ADAPTERS_ORGANIZATION_WIDE =
  'Source adapter definitions read the files of every site of the organization: only owners and managers of all its sites can create or change them';

/**
 * A definition maps the imported files of every site (which rows go to which site, form, element
 * and unit), so creating and changing one is for owners and managers whose sites cover the whole
 * organization (decision 166).
 */
async function authorizeOrganizationWide(tx: Tx, caller: Caller): Promise<void> {
  authorize(await coversOrganization(tx, caller), ADAPTERS_ORGANIZATION_WIDE);
}

/** Creates a definition with its first version. */
export async function createAdapter(tx: Tx, caller: Caller, body: AdapterBody): Promise<AdapterDefinition> {
  await authorizeOrganizationWide(tx, caller);
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
  await authorizeOrganizationWide(tx, caller);
  const org = caller.organizationId;
  const row = isUuid(id) ? await repo.find(tx, org, id, true) : undefined;
  if (!row) throw notFound('Source adapter definition');
  const fields = await checked(tx, caller, body);
  await repo.addVersion(tx, org, id, fields.version, body.mapping);
  await repo.update(tx, org, id, fields);
  return getAdapter(tx, caller, id);
}
