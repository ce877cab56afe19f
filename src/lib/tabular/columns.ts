/**
 * What the table encoders (this folder) take: columns of a fixed type and rows of cells in the
 * same order. The exports module names its columns with these (src/modules/exports/exports.columns.ts).
 */
export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'datetime' | 'json';

export interface Column {
  name: string;
  type: ColumnType;
  description: string;
}

/** A cell as read: null when empty; `json` cells hold any JSON value. */
export type ExportCell = string | number | boolean | Date | null | unknown;
export type ExportRow = ExportCell[];
