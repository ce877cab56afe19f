import Type, { type Static, type TSchema } from 'typebox';
import { Year } from '../../http/schemas.ts';
import type { Column } from './exports.columns.ts';
import { MEDIA_TYPES } from './exports.formats.ts';

const List = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ maxLength: 20_000 }), {
      maxItems: 1000,
      description: `${description}; comma-separated, or the parameter repeated`,
    }),
  );

const filters = {
  year: { ...Year, description: 'The reporting year' },
  formId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only this form' })),
  siteIds: List('Only these sites and their sub-sites (within the sites you can read)'),
  periodUnits: List('Only these periods (1-12)'),
};

export const ValuesQuery = Type.Object(
  {
    ...filters,
    statuses: List('Only values with these statuses: COMPLETED, APPROVED, REJECTED'),
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
    statuses: List('Only activities whose value has these statuses: COMPLETED, APPROVED, REJECTED'),
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
  periodUnits?: string[] | undefined;
  statuses?: string[] | undefined;
  updatedSince?: string | undefined;
  key?: string | undefined;
}
export type ValuesQuery = Static<typeof ValuesQuery>;

/** A line per column, for the OpenAPI description. */
export function columnList(columns: Column[]): string {
  return columns.map((c) => `- \`${c.name}\` (${c.type}): ${c.description}`).join('\n');
}

/** The 200 answer of a tabular export: the same rows as CSV, NDJSON or XLSX. */
export function tableContent(what: string, example: { csv: string; ndjson: string }): TSchema {
  return {
    description: `${what}, streamed; the format follows \`Accept\` (CSV by default). The columns are in the operation's description.`,
    headers: {
      'content-disposition': {
        description: 'attachment; filename="<export>-<year>.<csv|ndjson|xlsx>"',
        schema: { type: 'string' },
      },
      'cache-control': { description: '`no-store`: an export is never cached', schema: { type: 'string' } },
    },
    content: {
      [MEDIA_TYPES.csv]: {
        schema: Type.String({
          description:
            "RFC 4180 CSV with a header row; cells that a spreadsheet would run as a formula start with `'`",
        }),
        example: example.csv,
      },
      [MEDIA_TYPES.ndjson]: {
        schema: Type.String({
          description:
            'One JSON object per line, keys the column names; empty cells are null, JSON cells stay structured',
        }),
        example: example.ndjson,
      },
      [MEDIA_TYPES.xlsx]: {
        schema: Type.String({
          format: 'binary',
          description: 'A workbook with one sheet: the header row, then a row per record',
        }),
      },
    },
  } as unknown as TSchema;
}
