import type { Tx } from '../../db/client.ts';
import type { PeriodType } from '../../db/schema/index.ts';
import { invalidField, notFound } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { LAST_PERIOD } from '../completeness/index.ts';
import { forms } from '../forms/index.ts';

export interface ActivityElement {
  formId: string;
  periodType: PeriodType;
  elementId: string;
  key: string;
}

/**
 * The live ACTIVITY element `key` of the live form `formId` (or the one element of the form using
 * the activity definition with that key). What is missing is a 404 when the
 * pair names the collection being read (GET /activities), else a 400 naming the field; an
 * element of another type is always a 400 naming `key`.
 */
export async function resolveActivityElement(
  tx: Tx,
  organizationId: string,
  formId: string,
  key: string,
  missing: 'notFound' | 'invalid',
): Promise<ActivityElement> {
  // A write (markers) keeps the form from being deleted under it; a read (the listing) takes no lock.
  const lock = missing === 'invalid' ? 'share' : undefined;
  const form = isUuid(formId) ? await forms.find(tx, organizationId, formId, lock) : undefined;
  if (!form) {
    if (missing === 'notFound') throw notFound('Form');
    throw invalidField('formId', 'formId is not a form of this organization');
  }
  const elements = await forms.elements(tx, organizationId, [form.id]);
  const element =
    elements.find((e) => e.key === key) ?? (await byDefinitionKey(tx, organizationId, elements, key));
  if (!element) {
    if (missing === 'notFound') throw notFound(`Element "${key}" of the form`);
    throw invalidField('key', `key "${key}" is not an element of this form`);
  }
  if (element.type !== 'ACTIVITY') {
    throw invalidField('key', `key "${key}" names a ${element.type} element, not an ACTIVITY element`);
  }
  return { formId: form.id, periodType: form.period_type, elementId: element.id, key };
}

type Element = Awaited<ReturnType<typeof forms.elements>>[number];

/**
 * The one ACTIVITY element whose definition has the key `key`: an element's key defaults to its
 * definition's key, and the contract calls the parameter the activity definition key, so an
 * element given a key of its own is found by its definition's key too (when that is unambiguous).
 */
async function byDefinitionKey(
  tx: Tx,
  organizationId: string,
  elements: Element[],
  key: string,
): Promise<Element | undefined> {
  const activities = elements.filter((e) => e.type === 'ACTIVITY' && e.activity_definition_id);
  const definitions = await forms.activityDefinitions(
    tx,
    organizationId,
    activities.map((e) => e.activity_definition_id!),
  );
  const matches = activities.filter((e) => definitions.get(e.activity_definition_id!)?.key === key);
  return matches.length === 1 ? matches[0] : undefined;
}

/** A 400 naming `periodUnit` unless it is a period of the form's period type. */
export function checkPeriodUnit(periodType: PeriodType, periodUnit: number, path = 'periodUnit'): void {
  const last = LAST_PERIOD[periodType];
  if (periodUnit < 1 || periodUnit > last) {
    throw invalidField(path, `${path} must be ${last === 1 ? '1' : `1..${last}`} for a ${periodType} form`);
  }
}
