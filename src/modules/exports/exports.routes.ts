import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { activityColumns } from './activities.export.ts';
import { auditPackRoutes } from './audit-pack.routes.ts';
import { packSigner } from './audit-pack.signing.ts';
import { databasePlaces } from './export-places.ts';
import { HISTORY_COLUMNS, VALUE_COLUMNS } from './exports.columns.ts';
import { EXPORT_RETRY_AFTER_SECONDS, ExportGate } from './exports.gate.ts';
import {
  ActivitiesExportQuery,
  columnList,
  HistoryQuery,
  tableContent,
  ValuesQuery,
} from './exports.schemas.ts';
import { activitiesExport, historyExport, valuesExport } from './exports.service.ts';
import { type ExportDeps, sendExport } from './exports.stream.ts';

const TAGS = ['Exports'];
/** The 429 every export answers beyond the caps (`Retry-After` is added with every 429). */
const TOO_MANY_EXPORTS = {
  ...errors(429)[429],
  description: `Too many exports running at once: the caller (a user, or an API key) already runs as many as it may (SDCS_EXPORTS_PER_CALLER, 2 by default), or its organization does (SDCS_EXPORTS_PER_ORGANIZATION, 4 by default), or too many requests were sent (the rate limit). Send it again after \`Retry-After\` seconds (${EXPORT_RETRY_AFTER_SECONDS} for the export caps).`,
  examples: [
    {
      code: 'TOO_MANY_REQUESTS',
      message:
        'You already have 2 exports running, the most one user may run at once; try again when one has finished',
    },
  ],
};

const FORMATS =
  'Send `Accept: text/csv` (the default; UTF-8 with a byte order mark unless `bom=false`, CRLF line ends), `application/x-ndjson`, `application/vnd.openxmlformats-officedocument.spreadsheetml.sheet` or `application/vnd.apache.parquet` (typed columns): the four hold the same rows. Rows are streamed as they are read (the answer starts at once and holds no more than a page in memory); a client that disconnects stops the export, and one that stops reading is cut off after the send timeout (SDCS_SEND_TIMEOUT_SECONDS, 30 s by default). By default a caller runs at most 2 exports at once and an organization 4 (429 beyond); XLSX and Parquet are encoded in worker threads, two per organization at once, the others waiting their turn before the answer starts (429 beyond 8 waiting). Only the sites you can read are exported.';

/** Streamed exports of collected data for auditors and BI tools (docs/exports.md). */
export const exportsRoutes: FastifyPluginAsyncTypebox<Services> = async (
  app,
  { database, storage, heavy, exportLane, config },
) => {
  const deps: ExportDeps = {
    database,
    heavy,
    lane: exportLane,
    gate: new ExportGate(
      {
        perCaller: config.exportsPerCaller,
        perOrganization: config.exportsPerOrganization,
        total: config.dbStreamPoolSize,
      },
      databasePlaces(database),
    ),
  };
  app.get(
    '/exports/values',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'exports.values',
        tags: TAGS,
        summary: 'Export every stored value of a year',
        description: `One row per live value of the year, in value id order. ${FORMATS}\n\nColumns:\n${columnList(VALUE_COLUMNS)}`,
        querystring: ValuesQuery,
        response: {
          200: tableContent(
            'The values',
            {
              csv: `${VALUE_COLUMNS.map((c) => c.name).join(',')}\n`,
              ndjson:
                '{"valueId":"6f1c…","siteId":"…","value":1500,"unit":"kWh","originalValue":1.5,"selectedUnit":"MWh",…}\n',
            },
            VALUE_COLUMNS,
          ),
          ...errors(400, 401, 403),
          429: TOO_MANY_EXPORTS,
        },
      },
    },
    (request, reply) =>
      sendExport(request, reply, deps, (tx, caller) => valuesExport(tx, caller, request.query)),
  );

  app.get(
    '/exports/activities',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'exports.activities',
        tags: TAGS,
        summary: 'Export every activity of a year with its inputs and calculation',
        description: `One row per activity of the year, in activity id order. ${FORMATS}\n\nColumns (the \`input.<name>\` columns, one per input of the definitions met, ordered by definition key and then as each definition declares them, come after \`definitionKey\`):\n${columnList(activityColumns([]))}`,
        querystring: ActivitiesExportQuery,
        response: {
          200: tableContent(
            'The activities',
            {
              csv: `${activityColumns([{ name: 'input.kwh', type: 'json', description: '' }])
                .map((c) => c.name)
                .join(',')}\n`,
              ndjson: '{"activityId":"…","input.kwh":1200,"value":480,"calcCodeSha256":"9f86d0…",…}\n',
            },
            activityColumns([]),
            true,
          ),
          ...errors(400, 401, 403),
          429: TOO_MANY_EXPORTS,
        },
      },
    },
    (request, reply) =>
      sendExport(request, reply, deps, (tx, caller) => activitiesExport(tx, caller, request.query)),
  );

  app.get(
    '/exports/history',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'exports.history',
        tags: TAGS,
        summary: 'Export every change of the year’s values and activities',
        description: `The changes of values (in the order they were made), then those of activities, made up to the export's start. ${FORMATS}\n\nColumns:\n${columnList(HISTORY_COLUMNS)}`,
        querystring: HistoryQuery,
        response: {
          200: tableContent(
            'The changes',
            {
              csv: `${HISTORY_COLUMNS.map((c) => c.name).join(',')}\n`,
              ndjson:
                '{"changeId":"…","recordType":"value","action":"REVIEW","comment":"meter photo missing",…}\n',
            },
            HISTORY_COLUMNS,
          ),
          ...errors(400, 401, 403),
          429: TOO_MANY_EXPORTS,
        },
      },
    },
    (request, reply) =>
      sendExport(request, reply, deps, (tx, caller) => historyExport(tx, caller, request.query)),
  );

  auditPackRoutes(app, { deps, storage, signer: packSigner(config), tooMany: TOO_MANY_EXPORTS });
};
