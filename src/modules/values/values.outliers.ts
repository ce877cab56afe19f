import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { PeriodType } from '../../db/schema/index.ts';
import type { UnitFactor } from '../units/index.ts';
import type { PeriodWindow, PlannedValue } from './element-types.ts';
import type { ValueCheck } from './values.check.schemas.ts';
import type { ResolvedEntry } from './values.resolve.ts';
import { periodName, shown } from './values.rules.ts';

const LAST_PERIOD: Record<PeriodType, number> = { YEARLY: 1, QUARTERLY: 4, MONTHLY: 12 };

/** The periods a value is compared with: the previous period first, then the same period last year. */
export function referencePeriods(window: PeriodWindow): PeriodWindow[] {
  const { year, periodType, periodUnit } = window;
  const previous =
    periodUnit > 1
      ? { year, periodType, periodUnit: periodUnit - 1 }
      : { year: year - 1, periodType, periodUnit: LAST_PERIOD[periodType] };
  const lastYear = { year: year - 1, periodType, periodUnit };
  // A YEARLY form's previous period is last year: one reference.
  return periodType === 'YEARLY' ? [previous] : [previous, lastYear];
}

/**
 * How `value` stands against `reference` for factor `f` (decision 160): null when within the
 * factor, else why not. Equal values are never outliers (also two zeros); one zero against a
 * non-zero value, or values of opposite signs, always are (no factor relates them); otherwise the
 * larger magnitude divided by the smaller must not exceed f.
 */
export function outlierKind(
  value: number,
  reference: number,
  f: number,
): 'more' | 'less' | 'zero' | 'sign' | null {
  if (value === reference) return null;
  if (value === 0 || reference === 0) return 'zero';
  if (value < 0 !== reference < 0) return 'sign';
  const a = Math.abs(value);
  const b = Math.abs(reference);
  if (a / b > f) return 'more';
  if (b / a > f) return 'less';
  return null;
}

interface Candidate {
  entry: ResolvedEntry;
  plan: PlannedValue;
  value: number;
  factor: number;
  references: PeriodWindow[];
}

const slotKey = (siteId: string, elementId: string, year: number, period: number) =>
  `${siteId}|${elementId}|${year}|${period}`;

/**
 * The outliers among the batch's NUMBER values whose element has a `warnChangeFactor`: each value
 * against the same element's value at the same site in the previous period, then in the same
 * period last year. A reference is the value this batch writes there, else the stored value
 * (live, not REJECTED); every stored reference of the batch is read in one statement, before
 * anything is written. Issues are in value order, one per outlier, acknowledged when the value
 * has a comment.
 */
export async function findOutliers(
  tx: Tx,
  organizationId: string,
  entries: readonly ResolvedEntry[],
  units: ReadonlyMap<string, UnitFactor>,
): Promise<ValueCheck[][]> {
  const candidates: Candidate[] = [];
  const written = new Map<string, number | null>();
  for (const entry of entries) {
    const { siteId, year, periodType } = entry.target;
    for (const plan of entry.planned) {
      if (plan.timestamp !== null) continue;
      const value = plan.checked?.value;
      written.set(
        slotKey(siteId, plan.element.id, year, plan.periodUnit),
        typeof value === 'number' ? value : null,
      );
      const factor = plan.element.warn_change_factor;
      if (plan.element.type !== 'NUMBER' || !factor || typeof value !== 'number' || !periodType) continue;
      const references = referencePeriods({ year, periodType, periodUnit: plan.periodUnit });
      candidates.push({ entry, plan, value, factor, references });
    }
  }
  const out: ValueCheck[][] = entries.map(() => []);
  if (candidates.length === 0) return out;

  const wanted = candidates.flatMap((c) =>
    c.references
      .filter((r) => !written.has(slotKey(c.entry.target.siteId, c.plan.element.id, r.year, r.periodUnit)))
      .map((r) => ({
        form: c.entry.target.formId,
        site: c.entry.target.siteId,
        element: c.plan.element.id,
        year: r.year,
        period: r.periodUnit,
      })),
  );
  const stored = new Map<string, number>();
  if (wanted.length > 0) {
    // Each slot by its keys: the form-site of (form, site, year), its submission, then the value by
    // the submission's unique (element, period) key. In the submission bench (50 values, 100 slots,
    // a shared and loaded machine) this read took a median of 8.6 ms; a lateral probe per slot took
    // 26 ms, so did not help. See decision 160.
    const { rows } = await sql<{
      site_id: string;
      element_id: string;
      year: number;
      period_unit: number;
      n: number;
    }>`
      select r.site_id, r.element_id, r.year, r.period_unit, v.numeric_value as n
        from unnest(${wanted.map((w) => w.form)}::uuid[], ${wanted.map((w) => w.site)}::uuid[],
                    ${wanted.map((w) => w.element)}::uuid[], ${wanted.map((w) => w.year)}::int[],
                    ${wanted.map((w) => w.period)}::smallint[])
             as r(form_id, site_id, element_id, year, period_unit)
        join form_sites fs
          on fs.organization_id = ${organizationId} and fs.form_id = r.form_id and fs.site_id = r.site_id
         and fs.year = r.year
        join form_submissions s on s.organization_id = ${organizationId} and s.form_site_id = fs.id
        join form_element_submissions v
          on v.organization_id = ${organizationId} and v.form_submission_id = s.id
         and v.element_id = r.element_id and v.period_unit = r.period_unit and v."timestamp" is null
       where v.deleted_at is null and v.status <> 'REJECTED' and v.numeric_value is not null`.execute(tx);
    for (const r of rows) stored.set(slotKey(r.site_id, r.element_id, r.year, r.period_unit), r.n);
  }

  for (const c of candidates) {
    const n = entries.indexOf(c.entry);
    const unit = c.plan.element.unit_id ? units.get(c.plan.element.unit_id) : undefined;
    for (const period of c.references) {
      const key = slotKey(c.entry.target.siteId, c.plan.element.id, period.year, period.periodUnit);
      const reference = written.has(key) ? written.get(key) : stored.get(key);
      if (reference === undefined || reference === null) continue;
      const kind = outlierKind(c.value, reference, c.factor);
      if (!kind) continue;
      out[n]!.push({
        type: 'outlier',
        path: `values.${c.plan.index}.value`,
        message: outlierMessage(
          c.plan.element.label,
          c.value,
          reference,
          c.factor,
          kind,
          periodName(period),
          unit,
        ),
        acknowledged: Boolean(c.plan.comment),
        value: c.value,
        reference: { year: period.year, periodUnit: period.periodUnit, value: reference },
        factor: c.factor,
        change: kind,
        unit: unit ? { id: unit.id, symbol: unit.symbol, name: unitName(unit) } : null,
      });
      break;
    }
  }
  return out;
}

/** A unit as people read it: its name ("cubic metre"), its symbol only when no name was read. */
const unitName = (unit: UnitFactor) => unit.name || unit.symbol;

function outlierMessage(
  label: string,
  value: number,
  reference: number,
  factor: number,
  kind: 'more' | 'less' | 'zero' | 'sign',
  period: string,
  unit: UnitFactor | undefined,
): string {
  const of = (n: number) => (unit ? `${shown(n)} ${unitName(unit)}` : shown(n));
  const how = {
    more: `more than ${shown(factor)} times as much`,
    less: `less than 1/${shown(factor)} of it`,
    zero: reference === 0 ? 'it was zero' : 'it is zero now',
    sign: 'the sign changed',
  }[kind];
  return `${label} is ${of(value)} against ${of(reference)} in ${period}: ${how}. Check the value, or explain it in a comment`;
}
