import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, badRequest, forbidden, type Issue, invalidField, notFound } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { checkSyntax, metadataSchemaProblem } from '../../sandbox/index.ts';
import { coversOrganization } from '../access/index.ts';
import { loadUnits } from '../units/index.ts';
import { inputDefinitionIssues, normalizeInputs } from './activity-definitions.inputs.ts';
import { presentDefinition } from './activity-definitions.present.ts';
import {
  type DefinitionFields,
  type DefinitionRow,
  activityDefinitionsRepository as repo,
} from './activity-definitions.repository.ts';
import type {
  ActivityDefinition,
  CreateDefinitionBody,
  UpdateDefinitionBody,
} from './activity-definitions.schemas.ts';
import { uiCodeIssue } from './activity-definitions.ui-code.ts';

const COMMON_IS_ADMIN_ONLY = 'Only platform admins can share an activity definition with every organization';

/** Definitions as answered, with the symbol of their unit (one query for all). */
async function withUnitSymbols(
  tx: Tx,
  organizationId: string,
  rows: DefinitionRow[],
): Promise<ActivityDefinition[]> {
  const units = await loadUnits(
    tx,
    organizationId,
    rows.flatMap((r) => (r.unit_id ? [r.unit_id] : [])),
  );
  return rows.map((r) => presentDefinition(r, r.unit_id ? (units.get(r.unit_id)?.symbol ?? null) : null));
}

const withUnitSymbol = async (tx: Tx, organizationId: string, row: DefinitionRow) =>
  (await withUnitSymbols(tx, organizationId, [row]))[0]!;

/** A unitId must be a unit the organization sees (the catalog or its own). */
async function checkUnit(tx: Tx, organizationId: string, unitId: string | null): Promise<void> {
  if (unitId && !(await loadUnits(tx, organizationId, [unitId])).has(unitId))
    throw invalidField('unitId', 'unitId is not a unit of this organization or the catalog');
}

/** A slug of a name: lower-case ASCII letters and digits joined by single dashes. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 80)
    .replace(/^-+|-+$/g, '');
  return slug || 'activity';
}

/**
 * Checks what the schema cannot: unique input names, select options of the input's type, a
 * metadataSchema Ajv can compile, calcCode that compiles (in the sandbox) and uiCode that parses. Runs before the
 * transaction; throws one 400 listing every problem.
 */
export async function checkDefinitionContent(body: UpdateDefinitionBody): Promise<DefinitionFields> {
  const fields: DefinitionFields = {
    name: body.name,
    description: body.description ?? null,
    uiCode: body.uiCode,
    calcCode: body.calcCode,
    inputs: normalizeInputs(body.inputs),
    metadataSchema: body.metadataSchema ?? null,
    isCommon: body.isCommon ?? false,
    unitId: body.unitId ?? null,
  };
  const issues: Issue[] = inputDefinitionIssues(fields.inputs);
  if (fields.metadataSchema) {
    const problem = metadataSchemaProblem(fields.metadataSchema);
    if (problem) issues.push({ path: 'metadataSchema', message: `metadataSchema ${problem}` });
  }
  const syntax = await checkSyntax(fields.calcCode);
  if (syntax) issues.push({ path: 'calcCode', message: `calcCode: ${syntax.message}` });
  const uiProblem = uiCodeIssue(fields.uiCode);
  if (uiProblem) issues.push(uiProblem);
  if (issues.length > 0) throw badRequest('Invalid input data', issues);
  return fields;
}

export const ORGANIZATION_WIDE =
  'Activity definitions apply to every site of the organization: only owners and managers of all its sites can create, change or delete them';

/**
 * A definition calculates the activities of every site that uses it, so creating, changing and
 * deleting one is for owners and managers whose sites cover the whole organization; a manager
 * limited to some sites is refused (403), whatever the definition.
 */
export async function authorizeOrganizationWide(tx: Tx, caller: Caller): Promise<void> {
  authorize(await coversOrganization(tx, caller), ORGANIZATION_WIDE);
}

/** Sending `isCommon: true` needs a platform admin (checked before anything else). */
export function authorizeCommon(caller: Caller, isCommon: boolean | undefined): void {
  authorize(isCommon !== true || caller.isAdmin, COMMON_IS_ADMIN_ONLY);
}

export async function listDefinitions(tx: Tx, caller: Caller): Promise<ActivityDefinition[]> {
  return withUnitSymbols(tx, caller.organizationId, await repo.listVisible(tx, caller.organizationId));
}

export async function getDefinition(tx: Tx, caller: Caller, id: string): Promise<ActivityDefinition> {
  const row = isUuid(id) ? await repo.findVisible(tx, caller.organizationId, id) : undefined;
  if (!row) throw notFound('Activity definition');
  return withUnitSymbol(tx, caller.organizationId, row);
}

async function freeKey(tx: Tx, organizationId: string, base: string): Promise<string> {
  const taken = await repo.keysLike(tx, organizationId, base);
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base}-${n}`)) n += 1;
  return `${base}-${n}`;
}

function keyInUse(key: string) {
  return invalidField(
    'key',
    `key "${key}" is already used by another activity definition of this organization`,
  );
}

export async function createDefinition(
  tx: Tx,
  caller: Caller,
  body: CreateDefinitionBody,
  fields: DefinitionFields,
): Promise<ActivityDefinition> {
  await authorizeOrganizationWide(tx, caller);
  let key: string;
  if (body.key !== undefined) {
    if ((await repo.keysLike(tx, caller.organizationId, body.key)).has(body.key)) throw keyInUse(body.key);
    key = body.key;
  } else {
    key = await freeKey(tx, caller.organizationId, slugify(body.name));
  }
  await checkUnit(tx, caller.organizationId, fields.unitId);
  try {
    return withUnitSymbol(
      tx,
      caller.organizationId,
      await repo.insert(tx, caller.organizationId, key, fields),
    );
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw keyInUse(key);
    throw error;
  }
}

/** The caller's own definition; another organization's common one is read-only (403). */
async function ownDefinition(tx: Tx, caller: Caller, id: string, forUpdate = false): Promise<DefinitionRow> {
  const row = isUuid(id) ? await repo.findVisible(tx, caller.organizationId, id, forUpdate) : undefined;
  if (!row) throw notFound('Activity definition');
  if (row.organization_id !== caller.organizationId) {
    throw forbidden('This common activity definition belongs to another organization and is read-only');
  }
  return row;
}

export async function updateDefinition(
  tx: Tx,
  caller: Caller,
  id: string,
  body: UpdateDefinitionBody,
  fields: DefinitionFields,
): Promise<ActivityDefinition> {
  await authorizeOrganizationWide(tx, caller);
  await ownDefinition(tx, caller, id);
  // Locked and read again: `isCommon` left out keeps the value stored by a concurrent change.
  const row = await ownDefinition(tx, caller, id, true);
  const isCommon = body.isCommon ?? row.is_common;
  authorize(isCommon === row.is_common || caller.isAdmin, COMMON_IS_ADMIN_ONLY);
  await checkUnit(tx, caller.organizationId, fields.unitId);
  return withUnitSymbol(
    tx,
    caller.organizationId,
    await repo.update(tx, caller.organizationId, row.id, { ...fields, isCommon }),
  );
}

export async function deleteDefinition(tx: Tx, caller: Caller, id: string): Promise<ActivityDefinition> {
  await authorizeOrganizationWide(tx, caller);
  const row = await ownDefinition(tx, caller, id);
  try {
    return withUnitSymbol(tx, caller.organizationId, await repo.remove(tx, caller.organizationId, row.id));
  } catch (error) {
    if ((error as { code?: string }).code === '23503') {
      throw badRequest('The activity definition is in use', [
        {
          message: 'Form elements or activities still refer to this activity definition; remove them first',
        },
      ]);
    }
    throw error;
  }
}

/**
 * The stored definition `id` as the organization sees it (its own or a common one), for
 * calculating activities; undefined when there is none. Pass `{calcCode, metadataSchema}` to
 * `createCalcRunner` and check inputs with `activityInputIssues(definition.inputs, input)`.
 */
export async function getDefinitionForCalculation(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<ActivityDefinition | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await repo.findVisible(tx, organizationId, id);
  return row ? withUnitSymbol(tx, organizationId, row) : undefined;
}
