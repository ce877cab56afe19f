import type { ElementType, PeriodType } from '../../db/schema/index.ts';
import type { IssueCode, IssueParams } from '../../domain/issue-codes.ts';
import { isUuid } from '../../lib/ids.ts';
import { isExactNumber, TOO_LARGE } from '../../lib/numbers.ts';
import { convertValue, type UnitFactor, UnitMismatchError, UnitOverflowError } from '../units/index.ts';
import type {
  CheckContext,
  Checked,
  ElementInfo,
  ElementTypeHandler,
  ElementTypeHandlers,
  PeriodWindow,
  PlannedValue,
  Refusal,
} from './element-types.ts';
import type { ValueIssue } from './values.issues.ts';
import { dateOutsidePeriodIssue, numberRuleIssue, type RuleProblem } from './values.rules.ts';
import type { SubmitValue } from './values.schemas.ts';
import { optionValues } from './values.targets.ts';
import { parseTimestamp } from './values.timestamp.ts';

export const TEXT_MAX_LENGTH = 10_000;
/** Largest TIMESTAMP record value, as JSON text. */
export const RECORD_MAX_BYTES = 65_536;

const PERIOD_UNITS: Record<PeriodType, number> = { YEARLY: 1, QUARTERLY: 4, MONTHLY: 12 };

const plain = (value: unknown, numericValue: number | null = null): Checked => ({
  value,
  originalValue: null,
  numericValue,
});
const refuse = (
  message: string,
  field: Refusal['field'] = 'value',
  code?: IssueCode,
  params?: IssueParams,
): Refusal => ({ field, message, ...(code ? { code } : {}), ...(params ? { params } : {}) });

function isIsoDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

type Check = (value: unknown, ctx: CheckContext) => Checked | Refusal;

/** The plain types: a check of the value and nothing else to write. */
export const PLAIN_CHECKS: Record<Exclude<ElementType, 'ACTIVITY'>, Check> = {
  NUMBER(value, { elementUnit, selectedUnit }) {
    if (typeof value !== 'number' || !Number.isFinite(value))
      return refuse('must be a finite number', 'value', 'value.notNumber');
    if (!isExactNumber(value)) return refuse(TOO_LARGE, 'value', 'value.tooLarge');
    if (!selectedUnit) return plain(value, value);
    if (!elementUnit)
      return refuse(
        'cannot be used: the element has no unit to convert into',
        'selectedUnitId',
        'value.unitNotAllowed',
      );
    try {
      const converted = convertValue(value, selectedUnit, elementUnit);
      if (!isExactNumber(converted))
        return refuse(
          `is ${converted} in ${elementUnit.symbol}, which ${TOO_LARGE}`,
          'value',
          'value.tooLarge',
        );
      return { value: converted, originalValue: value, numericValue: converted };
    } catch (error) {
      if (error instanceof UnitMismatchError)
        return refuse(error.message, 'selectedUnitId', 'value.unitMismatch', {
          unit: error.from.symbol,
          elementUnit: error.to.symbol,
        });
      if (error instanceof UnitOverflowError) return refuse(error.message, 'value', 'value.tooLarge');
      throw error;
    }
  },
  TEXT(value) {
    if (typeof value !== 'string') return refuse('must be a string', 'value', 'value.notText');
    if (value.length > TEXT_MAX_LENGTH)
      return refuse(`must be at most ${TEXT_MAX_LENGTH} characters`, 'value', 'value.textTooLong', {
        max: TEXT_MAX_LENGTH,
      });
    return plain(value);
  },
  BOOLEAN(value) {
    return typeof value === 'boolean'
      ? plain(value)
      : refuse('must be true or false', 'value', 'value.notBoolean');
  },
  SELECT(value, { element }) {
    const allowed = optionValues(element);
    if (typeof value !== 'string' || !allowed.includes(value)) {
      const options = allowed.map((o) => JSON.stringify(o)).join(', ');
      return refuse(`must be one of the options: ${options}`, 'value', 'value.notOption', { options });
    }
    return plain(value);
  },
  DATE(value) {
    return typeof value === 'string' && isIsoDate(value)
      ? plain(value)
      : refuse('must be a date YYYY-MM-DD', 'value', 'value.notDate');
  },
  TIMESTAMP(value) {
    if (JSON.stringify(value).length > RECORD_MAX_BYTES)
      return refuse(`must be at most ${RECORD_MAX_BYTES} bytes of JSON`, 'value', 'value.recordTooLarge', {
        max: RECORD_MAX_BYTES,
      });
    return plain(value, typeof value === 'number' && Number.isFinite(value) ? value : null);
  },
  /**
   * FILE's shape here: a media id. The handler wired in `app.ts` is the media module's
   * (`fileElementHandler`: this check, and a session whose `plan` checks that the ids name
   * uploaded media of the organization).
   */
  FILE(value) {
    return isUuid(value)
      ? plain(value.toLowerCase())
      : refuse('must be a media id (UUID)', 'value', 'value.notMediaId');
  },
};

/** Handlers of the plain types (ACTIVITY's comes from the activities module, through app.ts). */
export const PLAIN_HANDLERS: Record<Exclude<ElementType, 'ACTIVITY'>, ElementTypeHandler> = {
  NUMBER: { check: PLAIN_CHECKS.NUMBER },
  TEXT: { check: PLAIN_CHECKS.TEXT },
  BOOLEAN: { check: PLAIN_CHECKS.BOOLEAN },
  SELECT: { check: PLAIN_CHECKS.SELECT },
  DATE: { check: PLAIN_CHECKS.DATE },
  TIMESTAMP: { check: PLAIN_CHECKS.TIMESTAMP },
  FILE: { check: PLAIN_CHECKS.FILE },
};

/** The identity of a stored value: (element, periodUnit), or (element, timestamp) for TIMESTAMP. */
export const slotOf = (elementId: string, periodUnit: number, timestamp: Date | null) =>
  timestamp ? `${elementId}|t${timestamp.getTime()}` : `${elementId}|p${periodUnit}`;

export type CheckValuesContext = {
  year: number;
  periodType: PeriodType;
  units: Map<string, UnitFactor>;
  handlers: ElementTypeHandlers;
};

/** Finds each value's period and checks it against its element's type; returns plans and issues. */
export function checkValues(
  values: SubmitValue[],
  elements: (ElementInfo | undefined)[],
  context: CheckValuesContext,
): { planned: PlannedValue[]; issues: ValueIssue[] } {
  const issues: ValueIssue[] = [];
  const planned: PlannedValue[] = [];
  const slots = new Map<string, number>();
  for (const [index, input] of values.entries()) {
    const element = elements[index];
    if (!element) continue;
    const result = checkValue(input, index, element, context);
    if ('message' in result) {
      issues.push(result);
      continue;
    }
    const slot = slotOf(element.id, result.periodUnit, result.timestamp);
    const earlier = slots.get(slot);
    if (earlier !== undefined) {
      const what = result.timestamp ? 'timestamp' : 'period';
      issues.push({
        index,
        field: null,
        message: `writes the same element and ${what} as values.${earlier}`,
        code: 'value.duplicate',
        params: { other: earlier },
      });
      continue;
    }
    slots.set(slot, index);
    planned.push(result);
  }
  return { planned, issues };
}

/**
 * One value: its period, its unit, and its type's `check` (once). The plan to store it, or the
 * issue (`index` is the value's index in its body).
 */
export function checkValue(
  input: SubmitValue,
  index: number,
  element: ElementInfo,
  context: CheckValuesContext,
): PlannedValue | ValueIssue {
  const refusal = (field: string, message: string, code: IssueCode): ValueIssue => ({
    index,
    field,
    message,
    code,
  });
  const period = periodOf(input, element, context.year, context.periodType);
  if ('message' in period) return { index, ...period };

  if (input.selectedUnitId === '')
    return refusal('selectedUnitId', 'must be a unit id or null, not empty', 'value.unitUnknown');
  const selectedUnitId = input.selectedUnitId?.toLowerCase() ?? null;
  const selectedUnit = selectedUnitId ? context.units.get(selectedUnitId) : undefined;
  if (selectedUnitId && element.type !== 'NUMBER') {
    return refusal('selectedUnitId', 'is only allowed for NUMBER elements', 'value.unitNotAllowed');
  }
  if (selectedUnitId && !selectedUnit)
    return refusal('selectedUnitId', 'is not a known unit', 'value.unitUnknown');

  let checked: Checked | null = null;
  if (input.value !== null) {
    const elementUnit = element.unit_id ? context.units.get(element.unit_id) : undefined;
    const window = { year: context.year, periodType: context.periodType, periodUnit: period.periodUnit };
    const result = context.handlers[element.type].check(input.value, {
      element,
      elementUnit,
      selectedUnit,
      period: window,
    });
    if ('message' in result) return { index, ...result };
    const broken = ruleProblem(element, result, elementUnit, selectedUnit, window);
    if (broken) return { index, field: 'value', whole: true, ...broken };
    checked = result;
  }
  return {
    index,
    element,
    periodUnit: period.periodUnit,
    timestamp: period.timestamp,
    checked,
    selectedUnitId: checked ? selectedUnitId : null,
    comment: input.comment ?? null,
  };
}

/**
 * The rules of decision 159 on a value its type accepted: a NUMBER against its element's limits
 * and whole-number rule (in the element's unit, after conversion), a DATE against its period.
 */
function ruleProblem(
  element: ElementInfo,
  checked: Checked,
  elementUnit: UnitFactor | undefined,
  selectedUnit: UnitFactor | undefined,
  window: PeriodWindow,
): RuleProblem | null {
  if (element.type === 'NUMBER' && typeof checked.value === 'number') {
    const sent =
      selectedUnit && typeof checked.originalValue === 'number'
        ? { value: checked.originalValue, unit: selectedUnit }
        : undefined;
    return numberRuleIssue(element, checked.value, elementUnit, sent);
  }
  if (element.type === 'DATE' && typeof checked.value === 'string') {
    return dateOutsidePeriodIssue(element.label, checked.value, window);
  }
  return null;
}

/** Why a value's period cannot be found, coded (decision 225). */
type PeriodProblem = {
  field: string;
  message: string;
  whole?: boolean;
  code: IssueCode;
  params?: IssueParams;
};

function periodOf(
  input: SubmitValue,
  element: ElementInfo,
  year: number,
  periodType: PeriodType,
): { periodUnit: number; timestamp: Date | null } | PeriodProblem {
  if (element.type === 'TIMESTAMP') {
    // null is the same as leaving it out (generated bodies send it for other elements).
    if (input.timestamp == null)
      return {
        field: 'timestamp',
        message: 'is required for TIMESTAMP elements',
        code: 'value.timestampRequired',
      };
    const timestamp = parseTimestamp(input.timestamp);
    if (!timestamp) {
      return {
        field: 'timestamp',
        message: 'is not an ISO 8601 date or time (such as 2025-04-01, 2025-04-01T10:00:00 or …+02:00)',
        code: 'value.timestampInvalid',
      };
    }
    if (timestamp.getUTCFullYear() !== year) {
      return {
        field: 'timestamp',
        message: `${element.label} must be within ${year} (${year}-01-01 to ${year}-12-31, UTC); ${timestamp.toISOString()} is not`,
        whole: true,
        code: 'value.timestampOutsideYear',
        params: { label: element.label, year, timestamp: timestamp.toISOString() },
      };
    }
    const month = timestamp.getUTCMonth() + 1;
    if (input.periodUnit !== undefined && input.periodUnit !== month) {
      return {
        field: 'periodUnit',
        message: `must be the UTC month of the timestamp (${month}) or left out`,
        code: 'value.timestampMonth',
        params: { month },
      };
    }
    return { periodUnit: month, timestamp };
  }
  if (input.timestamp != null)
    return {
      field: 'timestamp',
      message: 'is only for TIMESTAMP elements',
      code: 'value.timestampNotAllowed',
    };
  const last = PERIOD_UNITS[periodType];
  if (input.periodUnit === undefined)
    return { field: 'periodUnit', message: 'is required', code: 'value.periodRequired' };
  if (input.periodUnit < 1 || input.periodUnit > last) {
    return {
      field: 'periodUnit',
      message: `must be ${last === 1 ? '1' : `1..${last}`} for a ${periodType} form`,
      code: 'value.periodOutOfRange',
      params: { max: last, periodType },
    };
  }
  return { periodUnit: input.periodUnit, timestamp: null };
}
