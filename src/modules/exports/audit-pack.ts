import { createHash } from 'node:crypto';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ZipFile } from 'yazl';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { attachment } from '../../http/negotiation.ts';
import { clientGone } from '../../http/request-scope.ts';
import type { Storage } from '../../storage/storage.ts';
import {
  DATASET_COLUMNS,
  datasetRows,
  INDICATOR_COLUMNS,
  indicatorRows,
  LOCK_COLUMNS,
  lockRows,
} from './audit-pack.data.ts';
import { type Column, type ExportRow, VALUE_COLUMNS } from './exports.columns.ts';
import { createWriter, ExportCancelled, type RowWriter } from './exports.formats.ts';
import { evidenceMedia } from './exports.repository.ts';
import type { ExportQuery } from './exports.schemas.ts';
import { activitiesExport, type ExportPlan, historyExport, valuesExport } from './exports.service.ts';
import { admit, type ExportDeps, streamRun } from './exports.stream.ts';

/** A file of the pack as the manifest lists it. */
export interface PackedFile {
  path: string;
  bytes: number;
  sha256: string;
}

const EVIDENCE_IDS = VALUE_COLUMNS.findIndex((c) => c.name === 'evidenceFileIds');

/** A pass-through that counts and hashes what goes through it (one zip entry). */
function hashing() {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  return { stream, done: () => ({ bytes, sha256: hash.digest('hex') }) };
}

/** Everything the pack holds but the streamed tables, read in the request's first transaction. */
async function preparePack(tx: Tx, caller: Caller, query: ExportQuery, now: Date) {
  const values = await valuesExport(tx, caller, query);
  const activities = await activitiesExport(tx, caller, query);
  const history = await historyExport(tx, caller, query);
  const siteIds = query.siteIds?.flatMap((s) => s.split(',')).map((s) => s.trim());
  const formId = query.formId ?? null;
  return {
    values,
    activities,
    history,
    datasets: await datasetRows(tx, caller),
    indicators: await indicatorRows(tx, caller, query.year, siteIds, now),
    locks: await lockRows(tx, caller, query.year, formId),
  };
}

/**
 * GET /exports/audit-pack: one zip, streamed as it is made (yazl): the three tables as CSV, the
 * coefficients, the indicators with their values, the locks, the evidence files of the values
 * exported (from storage), then `manifest.json` and `SHA256SUMS` with the SHA-256 of every file
 * (computed while each is written, so nothing is read twice).
 */
export async function sendAuditPack(
  request: FastifyRequest,
  reply: FastifyReply,
  { database, gate }: ExportDeps,
  storage: Storage,
  query: ExportQuery,
) {
  const now = request.server.clock();
  const place = admit(request, reply, gate);
  let pack: Awaited<ReturnType<typeof preparePack>>;
  try {
    pack = await request.tenant((tx, caller) => preparePack(tx, caller, query, now));
  } catch (error) {
    place.leave();
    throw error;
  }
  const zip = new ZipFile();
  const signal = clientGone(request, reply);
  const files: PackedFile[] = [];
  const missing: { mediaId: string; fileName: string; reason: string }[] = [];
  let current: Transform | undefined;
  signal.addEventListener('abort', () => current?.destroy(), { once: true });
  const mtime = now;

  const entry = async (path: string, fill: (out: Writable) => Promise<void>) => {
    if (signal.aborted) throw new ExportCancelled();
    const { stream, done } = hashing();
    current = stream;
    zip.addReadStream(stream, path, { mtime });
    await fill(stream);
    stream.end();
    files.push({ path, ...done() });
  };
  const table = (path: string, columns: Column[], write: (writer: RowWriter) => Promise<void>) =>
    entry(path, async (out) => {
      const writer = createWriter('csv', out);
      await writer.start(columns);
      await write(writer);
      await writer.end();
    });
  const streamed = (path: string, plan: ExportPlan, tap?: (rows: ExportRow[]) => void) =>
    table(path, plan.columns, (writer) =>
      plan.write(database.engine, streamRun(request, database), signal, {
        ...writer,
        rows: (rows) => {
          tap?.(rows);
          return writer.rows(rows);
        },
      }),
    );

  const produce = async () => {
    const evidence = new Set<string>();
    await streamed('values.csv', pack.values, (rows) => {
      for (const row of rows) {
        const ids = row[EVIDENCE_IDS];
        if (typeof ids === 'string') for (const id of ids.split(';')) evidence.add(id);
      }
    });
    await streamed('activities.csv', pack.activities);
    await streamed('history.csv', pack.history);
    await table('datasets.csv', DATASET_COLUMNS, (w) => w.rows(pack.datasets));
    await table('indicators.csv', INDICATOR_COLUMNS, (w) => w.rows(pack.indicators));
    await table('locks.csv', LOCK_COLUMNS, (w) => w.rows(pack.locks));
    const media = evidence.size
      ? await request.tenant((tx, caller) => evidenceMedia(tx, caller.organizationId, [...evidence]))
      : [];
    for (const m of media) {
      const bytes = storage.open ? await storage.open(m.key) : undefined;
      if (!bytes) {
        missing.push({
          mediaId: m.id,
          fileName: m.file_name,
          reason: storage.open
            ? 'not found in storage'
            : `not readable from ${storage.kind} storage by the service`,
        });
        continue;
      }
      await entry(`evidence/${m.id}/${m.file_name.replace(/[/\\]/g, '_')}`, (out) =>
        pipeline(bytes, out, { end: false }),
      );
    }
    const manifest = {
      format: 'sdcs-audit-pack/1',
      createdAt: now.toISOString(),
      year: query.year,
      filters: { formId: query.formId ?? null, siteIds: query.siteIds ?? null },
      files,
      missingEvidence: missing,
    };
    zip.addBuffer(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), 'manifest.json', { mtime });
    zip.addBuffer(Buffer.from(files.map((f) => `${f.sha256}  ${f.path}\n`).join('')), 'SHA256SUMS', {
      mtime,
    });
    zip.end();
  };
  const producer = produce().catch((error: unknown) => {
    if (!(error instanceof ExportCancelled) && !signal.aborted)
      request.log.error({ err: error }, 'audit pack failed');
    current?.destroy();
    (zip.outputStream as unknown as Writable).destroy();
  });
  place.hold(producer);
  return reply
    .type('application/zip')
    .header('content-disposition', attachment(`audit-pack-${query.year}.zip`))
    .header('cache-control', 'no-store')
    .send(zip.outputStream);
}
