import type { Tx } from '../../db/client.ts';
import type { PeriodType, SelectOption } from '../../db/schema/index.ts';
import { badRequest, type Issue, invalidField } from '../../domain/errors.ts';
import type { IssueCode } from '../../domain/issue-codes.ts';
import { groupBy } from '../../lib/group-by.ts';
import { isUuid } from '../../lib/ids.ts';
import type { UnitFactor } from '../units/index.ts';
import type { ElementInfo } from './element-types.ts';
import { valueTargetsRepository as repo } from './targets.repository.ts';
import type { ValueIssue } from './values.issues.ts';
import type { SubmitBody, SubmitValue } from './values.schemas.ts';

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

function single<T>(rows: T[], what: string, path: string, key: string, value: string): T {
  if (rows.length === 1) return rows[0]!;
  const message =
    rows.length === 0
      ? `No ${what} has metadata ${key} = "${value}"`
      : `More than one ${what} has metadata ${key} = "${value}"`;
  throw invalidField(path, message);
}

/** A body's form or site as named: its id (null: not a UUID, so unknown), or why it cannot be found. */
type Named = { id: string | null } | { error: unknown };

async function nameForm(tx: Tx, organizationId: string, body: SubmitBody): Promise<Named> {
  try {
    const how = chooseAlternative(
      'form',
      'formId',
      body.formId,
      'formMetadataKey',
      body.formMetadataKey,
      'formMetadataValue',
      body.formMetadataValue,
    );
    if (how === 'id') return { id: isUuid(body.formId) ? body.formId.toLowerCase() : null };
    const key = body.formMetadataKey!;
    const value = body.formMetadataValue!;
    const found = await repo.formsByMetadata(tx, organizationId, key, value);
    return { id: single(found, 'form', 'formMetadataValue', key, value).id };
  } catch (error) {
    return { error };
  }
}

async function nameSite(tx: Tx, organizationId: string, body: SubmitBody): Promise<Named> {
  try {
    const how = chooseAlternative(
      'site',
      'siteId',
      body.siteId,
      'siteMetadataKey',
      body.siteMetadataKey,
      'siteMetadataValue',
      body.siteMetadataValue,
    );
    if (how === 'id') return { id: isUuid(body.siteId) ? body.siteId.toLowerCase() : null };
    const key = body.siteMetadataKey!;
    const value = body.siteMetadataValue!;
    const found = await repo.sitesByMetadata(tx, organizationId, key, value);
    return { id: single(found, 'site', 'siteMetadataValue', key, value).id };
  } catch (error) {
    return { error };
  }
}

/** A body's (form, site, year) resolved: `formSiteId` null when the form is not active there. */
export interface ResolvedTarget {
  formId: string;
  periodType: PeriodType;
  siteId: string;
  /** The site's name (what messages call it). */
  siteName: string;
  formSiteId: string | null;
  /** The form's live elements, in form order. */
  elements: ElementInfo[];
}

/**
 * Resolves the (form, site, year) of many bodies with one statement (plus one per form or site
 * named by metadata): the forms (locked for share), sites, active form-sites, the forms' elements
 * and the units they and the values name. Per body, the target or the error its form or site
 * gives, checked in the order a single request checks them (form first, then site).
 */
export async function resolveTargets(
  tx: Tx,
  organizationId: string,
  bodies: readonly SubmitBody[],
): Promise<{ targets: (ResolvedTarget | { error: unknown })[]; units: Map<string, UnitFactor> }> {
  const named: { form: Named; site: Named }[] = [];
  for (const body of bodies) {
    const form = await nameForm(tx, organizationId, body);
    named.push({ form, site: await nameSite(tx, organizationId, body) });
  }
  const idOf = (n: Named) => ('id' in n ? n.id : null);
  const unitIds = bodies.flatMap((b) =>
    b.values.flatMap((v) => (isUuid(v.selectedUnitId) ? [v.selectedUnitId] : [])),
  );
  const found = await repo.resolveTargets(
    tx,
    organizationId,
    bodies.map((b, i) => ({ formId: idOf(named[i]!.form), siteId: idOf(named[i]!.site), year: b.year })),
    unitIds,
  );
  const elements: Map<string, ElementInfo[]> = groupBy(found.elements, (e) => e.form_id);
  const targets = bodies.map((_, i): ResolvedTarget | { error: unknown } => {
    const { form, site } = named[i]!;
    const row = found.targets[i]!;
    if ('error' in form) return form;
    if (!row.form_id || !row.period_type) {
      return { error: invalidField('formId', 'formId is not a form of this organization') };
    }
    if ('error' in site) return site;
    if (!row.site_id) return { error: invalidField('siteId', 'siteId is not a site of this organization') };
    return {
      formId: row.form_id,
      periodType: row.period_type,
      siteId: row.site_id,
      siteName: row.site_name ?? '',
      formSiteId: row.form_site_id,
      elements: elements.get(row.form_id) ?? [],
    };
  });
  return { targets, units: new Map(found.units.map((u) => [u.id, u])) };
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
): { resolved: (ElementInfo | undefined)[]; issues: ValueIssue[] } {
  const issues: ValueIssue[] = [];
  const byId = new Map(elements.map((e) => [e.id, e]));
  const byKey = new Map(elements.map((e) => [e.key, e]));
  const resolved = values.map((v, i) => {
    const issue = (field: string | null, message: string, code?: IssueCode) =>
      issues.push({ index: i, field, message, ...(code ? { code } : {}) });
    const given = [v.elementId, v.elementKey, v.elementMetadataKey ?? v.elementMetadataValue].filter(
      (x) => x !== undefined,
    ).length;
    if (given === 0) {
      issue('elementId', 'is required (or elementKey, or elementMetadataKey and elementMetadataValue)');
      return undefined;
    }
    if (given > 1) {
      issue(
        null,
        'names its element in more than one way: give one of elementId, elementKey, elementMetadataKey',
      );
      return undefined;
    }
    if (v.elementId !== undefined) {
      const found = byId.get(v.elementId.toLowerCase());
      if (!found) issue('elementId', 'is not an element of this form', 'value.elementUnknown');
      return found;
    }
    if (v.elementKey !== undefined) {
      const found = byKey.get(v.elementKey);
      if (!found) issue('elementKey', 'names no element of this form', 'value.elementUnknown');
      return found;
    }
    if (v.elementMetadataKey === undefined) return void issue('elementMetadataKey', 'is required');
    if (v.elementMetadataValue === undefined) return void issue('elementMetadataValue', 'is required');
    const key = v.elementMetadataKey;
    const matches = elements.filter((e) => metadataText(e.metadata[key]) === v.elementMetadataValue);
    if (matches.length !== 1) {
      issue(
        'elementMetadataValue',
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
