import type { Writable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import pkg from '../../../package.json' with { type: 'json' };
import type { Engine, TenantRun, Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { attachment } from '../../http/negotiation.ts';
import { clientGone } from '../../http/request-scope.ts';
import type { Storage } from '../../storage/storage.ts';
import { assembleAuditPack, type StreamedTable } from './audit-pack.assemble.ts';
import type { PackHeader } from './audit-pack.data.ts';
import {
  datasetRows,
  formRows,
  historyWithUnits,
  indicatorRows,
  lockRows,
  packReference,
  unitRows,
  unitSymbols,
} from './audit-pack.data.ts';
import { methodology } from './audit-pack.methodology.ts';
import { keptCodeVersions, organizationName, packDefinitions } from './audit-pack.repository.ts';
import type { PackSigner } from './audit-pack.signing.ts';
import type { PackTableSpec } from './audit-pack.tables.ts';
import { VALUE_COLUMNS } from './exports.columns.ts';
import { exportContext } from './exports.filters.ts';
import { ExportCancelled } from './exports.formats.ts';
import { workerExport } from './exports.offload.ts';
import { evidenceMedia } from './exports.repository.ts';
import type { ExportQuery } from './exports.schemas.ts';
import { activitiesExport, type ExportPlan, historyExport, valuesExport } from './exports.service.ts';
import { admit, type ExportDeps, streamRun } from './exports.stream.ts';

/** Everything the pack holds but the streamed tables, read in the request's first transaction. */
async function preparePack(tx: Tx, caller: Caller, query: ExportQuery, now: Date) {
  const values = await valuesExport(tx, caller, query);
  const activities = await activitiesExport(tx, caller, query);
  const history = await historyExport(tx, caller, query);
  const ctx = await exportContext(tx, caller, { ...query, key: undefined });
  const ref = await packReference(tx, caller.organizationId);
  const siteIds = query.siteIds?.flatMap((s) => s.split(',')).map((s) => s.trim());
  const scopeIds = ctx.siteIds ?? [...ctx.sites.keys()];
  const header: PackHeader = {
    software: { name: 'sdcs', version: pkg.version },
    organization: { id: caller.organizationId, name: await organizationName(tx, caller.organizationId) },
    generatedBy: {
      userId: caller.userId,
      name: caller.name,
      email: caller.email,
      credential: caller.credential.kind,
    },
    createdAt: now,
    year: query.year,
    filters: { formId: ctx.formId, siteIds: siteIds ?? null },
    siteScope: {
      allSites: ctx.siteIds === null,
      sites: scopeIds
        .map((id) => ({ id, ...ctx.sites.get(id)! }))
        .sort((a, b) => a.path.localeCompare(b.path, 'en') || a.id.localeCompare(b.id)),
    },
  };
  return {
    header,
    ref,
    values,
    activities,
    history,
    units: unitRows(ref),
    datasets: datasetRows(ref),
    indicators: await indicatorRows(tx, caller, query.year, siteIds, now, ref),
    locks: await lockRows(tx, caller, query.year, ctx.formId),
  };
}

/**
 * GET /exports/audit-pack: admits the export, reads what the pack needs at its start, and sends
 * the zip `assembleAuditPack` makes while it reads the rest (docs/exports.md, "The audit pack").
 */
export async function sendAuditPack(
  request: FastifyRequest,
  reply: FastifyReply,
  { database, gate, lane }: ExportDeps,
  storage: Storage,
  signer: PackSigner,
  query: ExportQuery,
) {
  const now = request.server.clock();
  const place = await admit(request, reply, gate);
  let pack: Awaited<ReturnType<typeof preparePack>>;
  try {
    pack = await request.tenant((tx, caller) => preparePack(tx, caller, query, now));
  } catch (error) {
    await place.leave();
    throw error;
  }
  const signal = clientGone(request, reply);
  const run: TenantRun = streamRun(request, database);
  const url = database.serverUrl;
  // PostgreSQL: the three large tables are read and written as CSV by the export lane's worker
  // (decision 0236); this thread only hashes and zips their bytes.
  const table = (plan: ExportPlan, engine: Engine, spec: PackTableSpec = {}): StreamedTable => ({
    columns: plan.columns,
    write: (writer) => plan.write(engine, run, signal, writer),
    ...(url && {
      encoded: (out: Writable) =>
        workerExport(
          { lane },
          {
            databaseUrl: url,
            connections: gate.capacity(),
            organizationId: pack.header.organization.id,
            format: 'csv',
            columns: plan.columns,
            sheetName: plan.name,
            modified: now,
            bom: true,
            source: plan.source,
            pack: spec,
          },
          out,
          signal,
        ).done(),
    }),
  });
  const named = historyWithUnits(pack.ref);
  const column = (plan: ExportPlan, name: string) => plan.columns.findIndex((c) => c.name === name);
  const { stream, done } = assembleAuditPack(
    {
      header: pack.header,
      values: table(pack.values, database.engine, { evidence: column(pack.values, 'evidenceFileIds') }),
      activities: table(pack.activities, database.engine, {
        code: {
          definitionId: column(pack.activities, 'definitionId'),
          calcCodeSha256: column(pack.activities, 'calcCodeSha256'),
        },
      }),
      history: {
        ...table(pack.history, database.engine, { units: unitSymbols(pack.ref) }),
        write: (writer) =>
          pack.history.write(database.engine, run, signal, {
            ...writer,
            rows: (rows) => writer.rows(rows.map(named)),
          }),
      },
      cells: {
        evidence: VALUE_COLUMNS.findIndex((c) => c.name === 'evidenceFileIds'),
        definitionId: column(pack.activities, 'definitionId'),
        calcCodeSha256: column(pack.activities, 'calcCodeSha256'),
      },
      forms: (keys) => formRows(pack.ref, pack.header.filters.formId, keys),
      units: pack.units,
      datasets: pack.datasets,
      indicators: pack.indicators,
      locks: pack.locks,
      methodology: (use) =>
        request.tenant(async (tx, caller) => {
          const definitions = await packDefinitions(tx, caller.organizationId, [...use.byDefinition.keys()]);
          const kept = await keptCodeVersions(
            tx,
            definitions.map((d) => d.id),
            use.hashes(),
          );
          return {
            ...methodology(definitions, kept, use),
            keys: new Map(definitions.map((d) => [d.id, d.key])),
          };
        }),
      evidence: async (ids) => {
        if (ids.length === 0) return [];
        const media = await request.tenant((tx, caller) => evidenceMedia(tx, caller.organizationId, ids));
        return media.map((m) => ({
          mediaId: m.id,
          fileName: m.file_name,
          open: async () => {
            if (!storage.open) return { missing: `not readable from ${storage.kind} storage by the service` };
            return (await storage.open(m.key)) ?? { missing: 'not found in storage' };
          },
        }));
      },
      signer,
    },
    signal,
  );
  const producer = done.catch((error: unknown) => {
    if (!(error instanceof ExportCancelled) && !signal.aborted)
      request.log.error({ err: error }, 'audit pack failed');
    (stream as unknown as Writable).destroy();
  });
  place.hold(producer);
  return reply
    .type('application/zip')
    .header('content-disposition', attachment(`audit-pack-${query.year}.zip`))
    .header('cache-control', 'no-store')
    .send(stream);
}
