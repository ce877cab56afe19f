import type { Tx } from '../../db/client.ts';
import type { ElementType, PeriodType, SelectOption } from '../../db/schema/index.ts';
import { badRequest, type Issue, invalidField } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { formsRepository } from '../forms/forms.repository.ts';
import { submissionsRepository as repo } from './submissions.repository.ts';
import type { SubmitBody, SubmitValue } from './submissions.schemas.ts';

/** An element as submissions need it. */
export interface ElementInfo {
  id: string;
  key: string;
  type: ElementType;
  unit_id: string | null;
  options: unknown;
  metadata: Record<string, unknown>;
  /** ACTIVITY elements: the definition that calculates their activities. */
  activity_definition_id?: string | null;
}

export const optionValues = (element: ElementInfo) =>
  ((element.options ?? []) as SelectOption[]).map((o) => o.value);

/**
 * Checks that exactly one way of naming a record is used: `id`, or `key` + `value`.
 * Returns which, or throws a 400 naming the field to fix.
 */
function chooseAlternative(
  what: string,
  idField: string,
  id: string | undefined,
  keyField: string,
  key: string | undefined,
  valueField: string,
  value: string | undefined,
): 'id' | 'metadata' {
  const byMetadata = key !== undefined || value !== undefined;
  if (id !== undefined && byMetadata) {
    throw invalidField(
      idField,
      `Name the ${what} by ${idField} or by ${keyField} and ${valueField}, not both`,
    );
  }
  if (id !== undefined) return 'id';
  if (!byMetadata)
    throw invalidField(idField, `Name the ${what}: ${idField}, or ${keyField} and ${valueField}`);
  if (key === undefined) throw invalidField(keyField, `${keyField} is required with ${valueField}`);
  if (value === undefined) throw invalidField(valueField, `${valueField} is required with ${keyField}`);
  return 'metadata';
}

/** The live form the body names, by id or by a metadata field. */
export async function resolveForm(
  tx: Tx,
  organizationId: string,
  body: SubmitBody,
): Promise<{ id: string; period_type: PeriodType }> {
  const how = chooseAlternative(
    'form',
    'formId',
    body.formId,
    'formMetadataKey',
    body.formMetadataKey,
    'formMetadataValue',
    body.formMetadataValue,
  );
  if (how === 'id') {
    const form = isUuid(body.formId)
      ? await formsRepository.find(tx, organizationId, body.formId, 'share')
      : undefined;
    if (!form) throw invalidField('formId', 'formId is not a form of this organization');
    return form;
  }
  const found = await repo.formsByMetadata(
    tx,
    organizationId,
    body.formMetadataKey!,
    body.formMetadataValue!,
  );
  return single(found, 'form', 'formMetadataValue', body.formMetadataKey!, body.formMetadataValue!);
}

/** The site the body names, by id or by a metadata field. */
export async function resolveSite(tx: Tx, organizationId: string, body: SubmitBody): Promise<string> {
  const how = chooseAlternative(
    'site',
    'siteId',
    body.siteId,
    'siteMetadataKey',
    body.siteMetadataKey,
    'siteMetadataValue',
    body.siteMetadataValue,
  );
  if (how === 'id') {
    const site = isUuid(body.siteId) ? await repo.siteExists(tx, organizationId, body.siteId) : undefined;
    if (!site) throw invalidField('siteId', 'siteId is not a site of this organization');
    return site.id;
  }
  const found = await repo.sitesByMetadata(
    tx,
    organizationId,
    body.siteMetadataKey!,
    body.siteMetadataValue!,
  );
  return single(found, 'site', 'siteMetadataValue', body.siteMetadataKey!, body.siteMetadataValue!).id;
}

function single<T>(rows: T[], what: string, path: string, key: string, value: string): T {
  if (rows.length === 1) return rows[0]!;
  const message =
    rows.length === 0
      ? `No ${what} has metadata ${key} = "${value}"`
      : `More than one ${what} has metadata ${key} = "${value}"`;
  throw invalidField(path, message);
}

/** Text of a metadata field as PostgreSQL's `->>` gives it, for the same matching in memory. */
function metadataText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * Finds each value's element among the form's live elements (loaded once); returns the
 * elements by request index and the issues of the values naming none or several.
 */
export function resolveElements(
  values: SubmitValue[],
  elements: ElementInfo[],
): { resolved: (ElementInfo | undefined)[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const byId = new Map(elements.map((e) => [e.id, e]));
  const byKey = new Map(elements.map((e) => [e.key, e]));
  const issue = (path: string, message: string) => issues.push({ path, message: `${path} ${message}` });

  const resolved = values.map((v, i) => {
    const p = `values.${i}`;
    const given = [v.elementId, v.elementKey, v.elementMetadataKey ?? v.elementMetadataValue].filter(
      (x) => x !== undefined,
    ).length;
    if (given === 0) {
      issue(`${p}.elementId`, 'is required (or elementKey, or elementMetadataKey and elementMetadataValue)');
      return undefined;
    }
    if (given > 1) {
      issue(
        p,
        'names its element in more than one way: give one of elementId, elementKey, elementMetadataKey',
      );
      return undefined;
    }
    if (v.elementId !== undefined) {
      const found = byId.get(v.elementId.toLowerCase());
      if (!found) issue(`${p}.elementId`, 'is not an element of this form');
      return found;
    }
    if (v.elementKey !== undefined) {
      const found = byKey.get(v.elementKey);
      if (!found) issue(`${p}.elementKey`, `"${v.elementKey}" is not a key of this form`);
      return found;
    }
    if (v.elementMetadataKey === undefined) return void issue(`${p}.elementMetadataKey`, 'is required');
    if (v.elementMetadataValue === undefined) return void issue(`${p}.elementMetadataValue`, 'is required');
    const key = v.elementMetadataKey;
    const matches = elements.filter((e) => metadataText(e.metadata[key]) === v.elementMetadataValue);
    if (matches.length !== 1) {
      issue(
        `${p}.elementMetadataValue`,
        `matches ${matches.length === 0 ? 'no element' : 'more than one element'} (${key} = "${v.elementMetadataValue}")`,
      );
      return undefined;
    }
    return matches[0];
  });
  return { resolved, issues };
}

export function assertNoIssues(issues: Issue[], message = 'Invalid values'): void {
  if (issues.length > 0) throw badRequest(message, issues);
}
