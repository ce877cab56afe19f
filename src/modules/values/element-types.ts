import type { TenantRun, Tx } from '../../db/client.ts';
import type { ElementType, PeriodType } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import type { Issue } from '../../domain/errors.ts';
import type { IssueCode, IssueParams } from '../../domain/issue-codes.ts';
import type { UnitFactor } from '../units/index.ts';
import type { ValueItem } from './values.schemas.ts';

/** The period a value is written for. */
export interface PeriodWindow {
  year: number;
  periodType: PeriodType;
  periodUnit: number;
}

/** An element as submissions need it. */
export interface ElementInfo {
  id: string;
  key: string;
  /** What people call the element: messages name it by this, never by its key. */
  label: string;
  type: ElementType;
  unit_id: string | null;
  options: unknown;
  metadata: Record<string, unknown>;
  /** ACTIVITY elements: the definition that calculates their activities. */
  activity_definition_id?: string | null;
  /** NUMBER elements' plausibility rules (migration 0050; absent: none). */
  min_value?: number | null;
  max_value?: number | null;
  integer_only?: boolean;
  warn_change_factor?: number | null;
}

/**
 * Element types as handlers: the values module knows how to find, match and store values;
 * what a value of each type may be, and what else it writes, is its type's handler. The plain
 * types live in `values.plain.ts`; ACTIVITY in the activities module; the composition
 * root (`app.ts`) hands the complete table to the routes. Data flows one way:
 * values -> handler -> repositories, and no handler's module is imported by values.
 */

/** A value ready to store. */
export interface Checked {
  value: unknown;
  /** The value as sent, when it was converted from another unit; else null. */
  originalValue: unknown;
  /** The value as a number, when it is one (what indicators sum). */
  numericValue: number | null;
}

/** Why a value was refused, and which of its fields to blame. */
export interface Refusal {
  field: 'value' | 'selectedUnitId';
  message: string;
  /** The message is a whole sentence for people (see ValueIssue.whole). */
  whole?: boolean;
  /** The documented code of the problem and its values (decision 225). */
  code?: IssueCode;
  params?: IssueParams;
}

export interface CheckContext {
  element: ElementInfo;
  elementUnit: UnitFactor | undefined;
  selectedUnit: UnitFactor | undefined;
  /** The period the value is written for (the rules on dates need it). */
  period?: PeriodWindow;
}

/** A value of the request, checked: what to write or delete, at which period. */
export interface PlannedValue {
  /** Its index in the request's `values` (issues name `values.<index>…`). */
  index: number;
  element: ElementInfo;
  periodUnit: number;
  timestamp: Date | null;
  /** null: delete the stored value of this element and period (or timestamp). */
  checked: Checked | null;
  selectedUnitId: string | null;
  /** The import run and rows the value comes from (source imports); recorded on the value's row. */
  source?: ImportSource;
  /** Why the value is what it is (e.g. an outlier explained), kept with the change in its history. */
  comment?: string | null;
}

/** Which import run, and which of its rows, made a value. */
export interface ImportSource {
  runId: string;
  rows: { sheet: string; rowIndex: number }[];
}

/** Where the values of one body of a values pipeline call go (one (form, site, year)). */
export interface SubmissionTarget {
  formId: string;
  formSiteId: string;
  siteId: string;
  year: number;
  /** The form's period type (with `year` and a value's periodUnit: the period its dates must fall in). */
  periodType?: PeriodType;
}

export type { TenantRun };

/** What a handler's session may use besides the transactions it is handed. */
export interface StoreContext {
  organizationId: string;
  /** Who writes (the values' sessions check what the caller may attach, e.g. files). */
  caller: Caller;
  /** A short transaction of its own (e.g. a coefficient lookup during a calculation). */
  run: TenantRun;
  /** Aborted when the client has gone: stop working. */
  signal: AbortSignal;
  /**
   * Work the caller has already done that a type's sessions may reuse (source imports: the
   * calculation session that calculated their rows). Each handler takes only its own kind.
   */
  shared?: unknown;
}

/** How a session is asked to plan. */
export interface PlanOptions {
  /**
   * The values were already checked against the database in this transaction (source imports
   * check each row once, while analysing it): the session only prepares its work.
   */
  checked?: boolean;
}

/**
 * The handler of one element type.
 * - `check` (pure, per value): the value's shape; what to store (normalized) and its number.
 * - `open` (optional, per body of a pipeline call): a session for types whose values need the database
 *   (definitions, media), work outside any transaction (calculations) or side records.
 */
export interface ElementTypeHandler {
  check(value: unknown, ctx: CheckContext): Checked | Refusal;
  open?(ctx: StoreContext): ValuesSession;
}

/**
 * One body's work for one element type (each target of a values pipeline call). The
 * pipeline calls, per attempt:
 * `plan` then `ready` in one transaction; when a session is not ready, `compute` with no
 * transaction held, then a new attempt (at most 3 computations, then 409). When all are ready,
 * in that same transaction: the slot guards, the values' writes, then each session's `write`.
 */
export interface ValuesSession {
  /**
   * Checks this type's values (those of the request with this type, `checked` null for a
   * deletion) against the database; may normalize `checked.value`. Returns issues naming
   * `values.<index>…`. Called again on every attempt, with fresh plans.
   */
  plan(tx: Tx, values: PlannedValue[], target: SubmissionTarget, options?: PlanOptions): Promise<Issue[]>;
  /**
   * True when the planned values can be written now (sets their `numericValue` if it depends on
   * work done earlier); false when work must first run outside a transaction (`compute`), or
   * when what earlier work depended on has changed.
   */
  ready(tx: Tx): Promise<boolean>;
  /** The work `ready` asked for, with no transaction held; may throw a 400 naming the value. */
  compute(): Promise<void>;
  /**
   * After the values are written, in the same transaction: side records. `valueIds` holds the
   * stored row of each planned value that has one (none: a deletion that found nothing live).
   * Returns what to add to the answer's item of a planned value (e.g. its activities).
   */
  write(
    tx: Tx,
    caller: Caller,
    target: SubmissionTarget,
    valueIds: ReadonlyMap<PlannedValue, string>,
  ): Promise<ReadonlyMap<PlannedValue, Partial<ValueItem>> | undefined>;
  /** Frees what the session holds (sandbox runners); called once the call ends, however it ends. */
  close?(): Promise<void>;
}

export type ElementTypeHandlers = Record<ElementType, ElementTypeHandler>;

/** One element on one site and period, as slot guards see it. */
export interface ValueSlot {
  formId: string;
  siteId: string;
  year: number;
  period: number;
  /** The request field the slot comes from (e.g. `values.3`), so a refusal can name it. */
  path?: string;
  /** What would be written there (an element key), for the refusal's message. */
  label?: string;
}

/**
 * Runs in the write transaction before anything is written, on every path that changes stored
 * values or activities (submissions, activity PATCH, no-activity markers, recalculation). Throws
 * (an AppError) to refuse the whole write. Registered in `app.ts` (e.g. a period lock).
 */
export type SlotGuard = (tx: Tx, organizationId: string, slots: ValueSlot[]) => Promise<void>;

/** Runs every guard over the distinct slots. */
export async function runGuards(
  guards: readonly SlotGuard[],
  tx: Tx,
  organizationId: string,
  slots: readonly ValueSlot[],
): Promise<void> {
  if (guards.length === 0 || slots.length === 0) return;
  // One slot per (form, site, year, period): the first value of the request that lands there.
  const distinct = new Map<string, ValueSlot>();
  for (const s of slots) {
    const key = `${s.formId}|${s.siteId}|${s.year}|${s.period}`;
    if (!distinct.has(key)) distinct.set(key, s);
  }
  for (const guard of guards) await guard(tx, organizationId, [...distinct.values()]);
}
