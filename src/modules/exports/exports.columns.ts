/**
 * The columns of an export: one list per export, in file order. Rows are arrays of cells in the
 * same order; every format (CSV, NDJSON, XLSX) writes the same cells (see `exports.formats.ts`).
 */
import type { Column, ColumnType } from '../../lib/tabular/columns.ts';

export type { Column, ColumnType, ExportCell, ExportRow } from '../../lib/tabular/columns.ts';

const col = (name: string, type: ColumnType, description: string): Column => ({ name, type, description });

/** Site columns shared by every export (after the record's id). */
export const SITE_COLUMNS: Column[] = [
  col('siteId', 'string', 'The site (UUID)'),
  col('siteCode', 'string', 'The site’s code, empty when it has none'),
  col('siteName', 'string', 'The site’s name'),
  col('sitePath', 'string', 'Names from the top of the hierarchy to the site, joined by " / "'),
];

/** Period columns shared by the value and activity exports. */
export const PERIOD_COLUMNS: Column[] = [
  col('year', 'integer', 'The reporting year'),
  col('periodUnit', 'integer', 'The period within the year: 1 for yearly forms, 1-4 quarterly, 1-12 monthly'),
  col('periodLabel', 'string', 'The period as text: `2024`, `2024-Q1` or `2024-03`'),
];

export const VALUE_COLUMNS: Column[] = [
  col('valueId', 'string', 'The stored value (UUID)'),
  ...SITE_COLUMNS,
  col('formId', 'string', 'The form (UUID)'),
  col('formName', 'string', 'The form’s name'),
  col('elementId', 'string', 'The form element (UUID)'),
  col('elementKey', 'string', 'The element’s key'),
  col('elementLabel', 'string', 'The element’s label'),
  col('elementType', 'string', 'NUMBER, TEXT, BOOLEAN, SELECT, DATE, TIMESTAMP, FILE or ACTIVITY'),
  ...PERIOD_COLUMNS,
  col('timestamp', 'datetime', 'TIMESTAMP elements: the instant the value is for'),
  col(
    'value',
    'json',
    'The value as stored: in the element’s unit for NUMBER; the media id for FILE; the list of inputs for ACTIVITY',
  ),
  col('unit', 'string', 'Symbol of the element’s unit (the unit of `value`), empty without one'),
  col('originalValue', 'json', 'The value as entered, before conversion'),
  col('selectedUnit', 'string', 'Symbol of the unit the value was entered in, when it was converted'),
  col('status', 'string', 'COMPLETED, APPROVED or REJECTED'),
  col('enteredByName', 'string', 'Who wrote the value last'),
  col('enteredByEmail', 'string', 'Their e-mail address'),
  col('enteredAt', 'datetime', 'When the value was last written'),
  col('reviewedByName', 'string', 'APPROVED or REJECTED values: who reviewed the value'),
  col('reviewedByEmail', 'string', 'Their e-mail address'),
  col('reviewedAt', 'datetime', 'When'),
  col('reviewComment', 'string', 'The review’s comment, if any'),
  col('submissionId', 'string', 'The submission (form, site, year) holding the value'),
  col(
    'importRunId',
    'string',
    'The source import run that wrote the value, when the last write was an import',
  ),
  col('importRows', 'string', 'That run’s rows, as `sheet:rowIndex` (0-based) joined by ";"'),
  col('evidenceFileIds', 'string', 'FILE values: the media id(s), joined by ";"'),
  col('evidenceFileNames', 'string', 'FILE values: the file name(s), joined by ";"'),
  col('lockId', 'string', 'The live lock covering the value’s form, year, period and site, if any'),
  col('lockedAt', 'datetime', 'When that lock was set'),
  col('lockedByName', 'string', 'Who set it'),
];

/** The base columns of the activity export; `input.<name>` columns come between them. */
export const ACTIVITY_HEAD_COLUMNS: Column[] = [
  col('activityId', 'string', 'The activity (UUID)'),
  col('valueId', 'string', 'The ACTIVITY value (list of inputs) the activity belongs to'),
  col('position', 'integer', 'Its position in that list, from 0'),
  ...SITE_COLUMNS,
  col('formId', 'string', 'The form (UUID)'),
  col('formName', 'string', 'The form’s name'),
  col('elementKey', 'string', 'The ACTIVITY element’s key'),
  ...PERIOD_COLUMNS,
  col('definitionId', 'string', 'The activity definition (UUID)'),
  col('definitionKey', 'string', 'The definition’s key'),
];

export const ACTIVITY_TAIL_COLUMNS: Column[] = [
  col('value', 'number', 'The calculated value'),
  col('unit', 'string', 'Symbol of the ACTIVITY element’s unit, empty without one'),
  col('metadata', 'json', 'What the calculation returned beside the value'),
  col(
    'calcCodeSha256',
    'string',
    'SHA-256 (hex) of the calcCode that calculated the activity; empty for activities written before exports existed',
  ),
  col(
    'coefficients',
    'json',
    'The coefficients the calculation looked up, in order: [{key, datasetId, datasetName, datasetItemId, year, value, unit}] (null fields: not found); empty when not recorded (activities calculated before exports existed)',
  ),
  col(
    'coefficientsText',
    'string',
    'The same for people: `key (dataset, year) = value unit`, joined by "; "',
  ),
  col('enteredByName', 'string', 'Who wrote the activity last'),
  col('enteredByEmail', 'string', 'Their e-mail address'),
  col('updatedAt', 'datetime', 'When the activity was last written'),
];

export const HISTORY_COLUMNS: Column[] = [
  col('changeId', 'string', 'The history entry (UUID)'),
  col('recordType', 'string', '`value` or `activity`'),
  col('recordId', 'string', 'The value or activity'),
  col('action', 'string', 'CREATE, UPDATE, DELETE, REVIEW (values) or RECALCULATE (activities)'),
  col('at', 'datetime', 'When'),
  col('userName', 'string', 'Who'),
  col('userEmail', 'string', 'Their e-mail address'),
  col('comment', 'string', 'Why: the review’s comment (values); empty otherwise'),
  col('before', 'json', 'The record before the change (empty when it did not exist)'),
  col('after', 'json', 'The record after the change (empty when it was deleted)'),
  ...SITE_COLUMNS,
  col('formId', 'string', 'The form'),
  col('elementKey', 'string', 'The element'),
  ...PERIOD_COLUMNS,
];
