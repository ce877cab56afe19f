import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Json, NullableTimestamp, ValueStatus } from './identity.ts';
import type { Aggregation } from './indicators.ts';

export type PeriodType = 'YEARLY' | 'QUARTERLY' | 'MONTHLY';
export type ElementType =
  | 'NUMBER'
  | 'TEXT'
  | 'BOOLEAN'
  | 'SELECT'
  | 'DATE'
  | 'TIMESTAMP'
  | 'FILE'
  | 'ACTIVITY';

export interface SelectOption {
  label: string;
  value: string;
}

export interface FormsTable {
  id: Generated<string>;
  organization_id: string;
  name: string;
  description: string | null;
  period_type: PeriodType;
  metadata: Json<Record<string, unknown>>;
  /** The name in other languages, by BCP 47 tag (0059). */
  names: Json<Record<string, string>>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  deleted_at: NullableTimestamp;
  /** Days after a period's end when its data is due; null: no due date. */
  due_days: Generated<number | null>;
}

export interface FormElementsTable {
  id: Generated<string>;
  organization_id: string;
  form_id: string;
  key: string;
  label: string;
  type: ElementType;
  required: Generated<boolean>;
  unit_id: string | null;
  options: Json<SelectOption[] | null>;
  activity_definition_id: string | null;
  metadata: Json<Record<string, unknown>>;
  /** The label and the help text in other languages, by BCP 47 tag (0059). */
  labels: Json<Record<string, string>>;
  help_texts: Json<Record<string, string>>;
  position: Generated<number>;
  /** How the element's periods combine for indicators (NUMBER elements; SUM otherwise). */
  aggregation: ColumnType<Aggregation, Aggregation | undefined, Aggregation>;
  /** NUMBER elements: the smallest and largest value accepted, in the element's unit (0050). */
  min_value: ColumnType<number | null, number | null | undefined, number | null>;
  max_value: ColumnType<number | null, number | null | undefined, number | null>;
  /** NUMBER elements: only whole numbers are accepted. */
  integer_only: Generated<boolean>;
  /** NUMBER elements: a value more than this factor away from its references is an outlier. */
  warn_change_factor: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  deleted_at: NullableTimestamp;
}

export interface FormSitesTable {
  id: Generated<string>;
  organization_id: string;
  form_id: string;
  site_id: string;
  year: number;
  active: Generated<boolean>;
  /** Whether the form site has its submission (kept by triggers on form_submissions). */
  submitted: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

/** Active form sites with a submission, per (form, year) (kept by triggers on form_sites). */
export interface FormSubmissionCountsTable {
  organization_id: string;
  form_id: string;
  year: number;
  submissions: number;
}

export interface FormSubmissionsTable {
  id: Generated<string>;
  organization_id: string;
  form_site_id: string;
  user_id: string;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

/** An Idempotency-Key of POST /form-submissions and the answer it was given (decision 194). */
export interface FormSubmissionKeysTable {
  organization_id: string;
  user_id: string;
  key: string;
  fingerprint: string;
  status: number | null;
  response: Json<unknown>;
  created_at: CreatedAt;
}

export interface FormElementSubmissionsTable {
  id: Generated<string>;
  organization_id: string;
  form_submission_id: string;
  element_id: string;
  period_unit: number;
  timestamp: NullableTimestamp;
  value: Json;
  original_value: Json;
  numeric_value: number | null;
  selected_unit_id: string | null;
  /** The site and year of the submission's form-site (filled from it when left out). */
  site_id: ColumnType<string, string | undefined, never>;
  year: ColumnType<number, number | undefined, never>;
  status: ColumnType<ValueStatus, ValueStatus | undefined, ValueStatus>;
  user_id: string;
  recorded_at: CreatedAt;
  created_at: CreatedAt;
  deleted_at: NullableTimestamp;
  /** How many activities the value has (ACTIVITY elements; kept by triggers on activities). */
  activity_count: Generated<number>;
  /** The import run whose rows made the value's last write, null for any other write (0045). */
  import_run_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** That run's rows ([{sheet, rowIndex}]), null with the run. */
  import_rows: ColumnType<{ sheet: string; rowIndex: number }[] | null, unknown, unknown>;
}

export type HistoryAction = 'CREATE' | 'UPDATE' | 'DELETE' | 'REVIEW';

export interface FormValueHistoryTable {
  id: Generated<string>;
  seq: Generated<number>;
  organization_id: string;
  value_id: string;
  action: HistoryAction;
  user_id: string;
  at: CreatedAt;
  before: Json;
  after: Json;
  comment: string | null;
}
