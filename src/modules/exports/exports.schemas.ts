import Type, { type Static, type TSchema } from 'typebox';
import { Year } from '../../http/schemas.ts';
import type { Column } from './exports.columns.ts';
import { MEDIA_TYPES } from './exports.formats.ts';

const List = <T extends TSchema>(description: string, item: T) =>
  Type.Optional(
    Type.Array(item, {
      maxItems: 1000,
      description: `${description}; comma-separated, or the parameter repeated`,
    }),
  );

/** The statuses a value can have (the exports' `statuses` filter). */
const VALUE_STATUSES = ['COMPLETED', 'APPROVED', 'REJECTED'] as const;
const Status = Type.Enum([...VALUE_STATUSES]);
const Period = Type.Integer({ minimum: 1, maximum: 12 });

/** `bom`: CSV only; the other formats ignore it. */
const Bom = Type.Optional(
  Type.Boolean({
    default: true,
    description:
      'CSV only: start the file with a UTF-8 byte order mark (the default, so that Excel and LibreOffice read it as UTF-8); `bom=false` leaves it out for tools that take the mark for part of the first column name',
  }),
);

const filters = {
  year: { ...Year, description: 'The reporting year' },
  formId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only this form' })),
  siteIds: List(
    'Only these sites and their sub-sites (within the sites you can read)',
    Type.String({ maxLength: 20_000 }),
  ),
  periodUnits: List('Only these periods (1 to 12 as the form’s period type allows)', Period),
  bom: Bom,
};

export const ValuesQuery = Type.Object(
  {
    ...filters,
    statuses: List('Only values with these statuses', Status),
    updatedSince: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Only values written or reviewed at or after this time (ISO 8601)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ActivitiesExportQuery = Type.Object(
  {
    ...filters,
    key: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Only the ACTIVITY elements with this key' }),
    ),
    statuses: List('Only activities whose value has these statuses', Status),
    updatedSince: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only activities written at or after this time' }),
    ),
  },
  { additionalProperties: false },
);

export const HistoryQuery = Type.Object(
  {
    ...filters,
    updatedSince: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only changes made at or after this time' }),
    ),
  },
  { additionalProperties: false },
);

export const AuditPackQuery = Type.Object(
  {
    year: filters.year,
    formId: filters.formId,
    siteIds: filters.siteIds,
  },
  { additionalProperties: false },
);

/** The filters of every export (each route declares those it takes). */
export interface ExportQuery {
  year: number;
  formId?: string | undefined;
  siteIds?: string[] | undefined;
  periodUnits?: number[] | undefined;
  statuses?: string[] | undefined;
  bom?: boolean | undefined;
  updatedSince?: string | undefined;
  key?: string | undefined;
}
export type ValuesQuery = Static<typeof ValuesQuery>;

/** A line per column, for the OpenAPI description. */
export function columnList(columns: Column[]): string {
  return columns.map((c) => `- \`${c.name}\` (${c.type}): ${c.description}`).join('\n');
}

/** One column's JSON type in an NDJSON line (empty cells are null). */
function jsonTypeOf(column: Column): Record<string, unknown> {
  const description = column.description;
  switch (column.type) {
    case 'integer':
      return { type: ['integer', 'null'], description };
    case 'number':
      return { type: ['number', 'null'], description };
    case 'boolean':
      return { type: ['boolean', 'null'], description };
    case 'datetime':
      return { type: ['string', 'null'], format: 'date-time', description };
    case 'json':
      return { description: `${description} (any JSON value, or null)` };
    default:
      return { type: ['string', 'null'], description };
  }
}

/**
 * The schema of one NDJSON line: an object with a property per column (`x-item-schema` on the
 * media type, docs/exports.md). `open`: the activity export's `input.<name>` columns depend on
 * the definitions met, so its lines may hold more properties.
 */
export function lineSchema(columns: Column[], open = false): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(columns.map((c) => [c.name, jsonTypeOf(c)])),
    required: columns.map((c) => c.name),
    additionalProperties: open
      ? { description: 'an `input.<name>` column (any JSON value, or null)' }
      : false,
  };
}

/** Header objects of an export's answer (plain schemas: the OpenAPI generator wraps them). */
export function exportHeaders(fileName: string) {
  return {
    'content-disposition': Type.String({ description: `\`attachment; filename="${fileName}"\`` }),
    'cache-control': Type.String({ description: '`no-store`: an export is never cached' }),
  };
}

/** The 200 answer of a tabular export: the same rows as CSV, NDJSON, XLSX or Parquet. */
export function tableContent(
  what: string,
  example: { csv: string; ndjson: string },
  columns: Column[],
  open = false,
): TSchema {
  return {
    description: `${what}, streamed; the format follows \`Accept\` (CSV by default). The columns are in the operation's description.`,
    headers: exportHeaders('<export>-<year>.<csv|ndjson|xlsx|parquet>'),
    content: {
      [MEDIA_TYPES.csv]: {
        schema: Type.String({
          description:
            "RFC 4180 CSV: UTF-8 with a byte order mark (unless `bom=false`), records separated by CRLF, a header row; cells that a spreadsheet would run as a formula start with `'`",
        }),
        example: `\uFEFF${example.csv}`,
      },
      [MEDIA_TYPES.ndjson]: {
        schema: Type.String({
          description:
            'One JSON object per line (LF), keys the column names; empty cells are null, JSON cells stay structured. `x-item-schema` is the schema of one line',
        }),
        'x-item-schema': lineSchema(columns, open),
        example: example.ndjson,
      },
      [MEDIA_TYPES.xlsx]: {
        schema: Type.String({
          format: 'binary',
          description:
            'A workbook with one sheet: the header row, then a row per record; numbers are number cells, times date cells (UTC), text inline text',
        }),
      },
      [MEDIA_TYPES.parquet]: {
        schema: Type.String({
          format: 'binary',
          description:
            'Apache Parquet: typed columns (text STRING, integers INT32, numbers DOUBLE, times TIMESTAMP in milliseconds UTC, JSON cells JSON), one row group per 2,000 rows',
        }),
      },
    },
  } as unknown as TSchema;
}
