import Type, { type Static } from 'typebox';
import { EXAMPLE_ADAPTER_VERSION, EXAMPLE_IDS } from '../../http/examples.ts';
import { idempotencyKey } from '../../http/idempotency.ts';
import { Pagination, pageQuery } from '../../http/paging.ts';
import { DateTime, IssueCodeSchema, IssueParamsSchema, Nullable, Uuid } from '../../http/schemas.ts';

const Strict = { additionalProperties: false } as const;
export const MAX_ROWS = 10_000;
export const MAX_CELL_CHARS = 16_000;

export const SheetCell = Type.Union([
  Type.String({ maxLength: MAX_CELL_CHARS }),
  Type.Number(),
  Type.Boolean(),
  Type.Null(),
]);
export type SheetCell = Static<typeof SheetCell>;
export type SheetRow = Record<string, SheetCell>;

export const ImportHeaders = Type.Object({
  'idempotency-key': idempotencyKey(
    '1-200 printable ASCII characters without spaces, unique per import and user; reuse it unchanged on retries. Keys are kept at least 24 hours (currently for as long as the run is kept).',
  ),
  prefer: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        '`respond-async` (RFC 7240): answer 202 with the run at once and import after the answer; poll `GET /source-imports/{runId}` (the `Location`) until its status is `completed`, `previewed` or `failed`. Recommended for imports of more than 2,000 rows. Other preferences are ignored.',
      examples: ['respond-async'],
    }),
  ),
});

/** Whether the client asked for the answer before the work (`Prefer: respond-async`, RFC 7240). */
export const prefersAsync = (prefer: string | undefined) =>
  (prefer ?? '').split(',').some((p) => p.split(';')[0]!.trim().toLowerCase() === 'respond-async');

export const ImportBody = Type.Object(
  {
    sourceAdapterDefinitionId: Type.String({ minLength: 1, maxLength: 200 }),
    adapterVersion: Type.String({ pattern: '^[a-f0-9]{64}$' }),
    mode: Type.Optional(
      Type.Union([Type.Literal('preview'), Type.Literal('execute')], { default: 'preview' }),
    ),
    allowMissingFormSiteCreation: Type.Optional(Type.Boolean({ default: false })),
    context: Type.Optional(
      Type.Object(
        {
          year: Type.Optional(Type.Integer({ minimum: 1900, maximum: 2200 })),
          siteId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        },
        Strict,
      ),
    ),
    sheets: Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 200 }),
          rows: Type.Array(Type.Record(Type.String(), SheetCell), { maxItems: MAX_ROWS }),
        },
        Strict,
      ),
      { minItems: 1, maxItems: 50 },
    ),
  },
  {
    ...Strict,
    examples: [
      {
        sourceAdapterDefinitionId: EXAMPLE_IDS.sourceAdapter,
        adapterVersion: EXAMPLE_ADAPTER_VERSION,
        mode: 'preview',
        sheets: [
          {
            name: 'Electricity',
            rows: [
              { Site: 'PLANT-01', Year: 2025, Month: 1, Amount: 1200, Unit: 'kWh' },
              { Site: 'PLANT-01', Year: 2025, Month: 2, Amount: '1.1', Unit: 'MWh' },
            ],
          },
        ],
      },
    ],
  },
);
export type ImportBody = Static<typeof ImportBody>;

export const Run = Type.Object({
  id: Uuid,
  sourceAdapterDefinitionId: Uuid,
  organizationId: Uuid,
  userId: Uuid,
  mediaId: Nullable(Type.String()),
  fileName: Nullable(Type.String()),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('previewed'),
    Type.Literal('processing'),
    Type.Literal('completed'),
    Type.Literal('failed'),
  ]),
  totalRows: Type.Integer(),
  draftCount: Type.Integer(),
  issueCount: Type.Integer(),
  activityWriteCount: Type.Integer(),
  formValueWriteCount: Type.Integer(),
  error: Nullable(Type.String()),
  processedAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
  deletedAt: Nullable(DateTime),
});
export type Run = Static<typeof Run>;

const Count = Type.Integer({ minimum: 0 });
export const Counts = Type.Object({
  total: Count,
  parsed: Count,
  ready: Count,
  imported: Count,
  reduced: Count,
  skipped: Count,
  failed: Count,
});
export type Counts = Static<typeof Counts>;

export const RowIssue = Type.Object({
  sheet: Type.String(),
  rowIndex: Type.Integer({ minimum: 0, description: 'Index of the row in its sheet, from 0' }),
  column: Type.Optional(Type.String()),
  message: Type.String(),
  code: Type.Optional(IssueCodeSchema),
  params: Type.Optional(IssueParamsSchema),
});
export type RowIssue = Static<typeof RowIssue>;

export const MissingFormSite = Type.Object({
  formId: Type.String(),
  formName: Type.String(),
  siteId: Type.String(),
  siteName: Nullable(Type.String()),
  year: Type.Integer(),
  rowCount: Type.Integer({ minimum: 1 }),
  draftKinds: Type.Array(Type.Union([Type.Literal('activity'), Type.Literal('form_value')])),
  targetKeys: Type.Array(Type.String()),
  rowIndexes: Type.Array(Type.Integer({ minimum: 0 })),
});
export type MissingFormSite = Static<typeof MissingFormSite>;

export const Readiness = Type.Object({
  requiresMissingFormSiteConfirmation: Type.Boolean(),
  missingFormSites: Type.Array(MissingFormSite),
});
export type Readiness = Static<typeof Readiness>;

export const ImportResult = Type.Object({
  run: Run,
  adapterVersion: Type.String(),
  counts: Counts,
  replayed: Type.Boolean(),
  execution: Type.Object({
    attempted: Type.Boolean(),
    blocked: Type.Boolean(),
    message: Nullable(Type.String()),
    readiness: Nullable(Readiness),
  }),
  issues: Type.Array(RowIssue, {
    description: 'The first 100 row issues (all of them: GET /source-imports/{runId})',
  }),
});
export type ImportResult = Static<typeof ImportResult>;

export const ImportAccepted = Type.Object({
  run: Run,
  replayed: Type.Boolean({
    description: 'true: the key was already used with this body; this is the run it started',
  }),
});
export type ImportAccepted = Static<typeof ImportAccepted>;

export const RunsQuery = Type.Object(pageQuery('Runs'), Strict);
export const RunQuery = Type.Object(pageQuery('Issues'), Strict);

export const RunPage = Type.Object({ items: Type.Array(Run), pagination: Pagination });

export const RunDetail = Type.Object({
  run: Run,
  adapterVersion: Type.String(),
  counts: Counts,
  issues: Type.Object({ items: Type.Array(RowIssue), pagination: Pagination }),
});
export const RunParams = Type.Object({ runId: Type.String() });
