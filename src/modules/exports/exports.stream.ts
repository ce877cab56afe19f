import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database, TenantRun, Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { callerOf } from '../../http/auth.ts';
import { attachment, prefers } from '../../http/negotiation.ts';
import { clientGone } from '../../http/request-scope.ts';
import type { StreamLane } from '../../lib/heavy/lane.ts';
import type { HeavyWork } from '../../lib/heavy/pool.ts';
import {
  createWriter,
  ExportCancelled,
  type ExportFormat,
  MEDIA_TYPES,
  type RowWriter,
} from './exports.formats.ts';
import type { ExportGate } from './exports.gate.ts';
import { OFF_LOOP_FORMATS, offLoopWriter, workerExport } from './exports.offload.ts';
import type { ExportPlan } from './exports.service.ts';

/**
 * What a streamed export needs besides its request: the database, the gate counting exports, the
 * heavy-work pool that makes XLSX and Parquet off the request loop, and the export lane that makes
 * CSV and NDJSON there (on PostgreSQL).
 */
export interface ExportDeps {
  database: Database;
  gate: ExportGate;
  heavy: HeavyWork;
  lane: StreamLane;
}

/**
 * Runs each call in a new transaction of the caller's organization on the stream pool
 * (`Database.stream`): an export's long read never holds a connection that requests need.
 */
export const streamRun =
  (request: FastifyRequest, database: Database): TenantRun =>
  (fn) =>
    database.stream(callerOf(request).organizationId, fn);

/**
 * Takes the export's place at the gate (or throws its 429/503) and returns `hold`: the place is
 * given back once the answer is closed (sent, cut off, or abandoned) and the producer has settled
 * (its transaction ended), or at once by `leave` when the export fails before it starts.
 */
export async function admit(request: FastifyRequest, reply: FastifyReply, gate: ExportGate) {
  const leave = await gate.enter(callerOf(request), reply, (fn) => request.tenant((tx) => fn(tx)));
  const closed = new Promise<void>((resolve) => {
    if (reply.raw.closed) return resolve();
    reply.raw.once('close', () => resolve());
    reply.raw.once('finish', () => resolve());
  });
  return {
    leave,
    hold(producer: Promise<unknown>) {
      void Promise.allSettled([producer, closed]).then(leave);
    },
  };
}

const OTHER_FORMATS: ExportFormat[] = ['ndjson', 'xlsx', 'parquet'];

/**
 * The format an `Accept` header asks for: NDJSON, XLSX or Parquet when preferred to every other,
 * else CSV (also for `*\/*`, no header, or types no export has: the service answers CSV rather
 * than 406).
 */
export function formatOf(accept: string | undefined): ExportFormat {
  const beats = (a: ExportFormat, b: ExportFormat) => prefers(accept, MEDIA_TYPES[a], MEDIA_TYPES[b]);
  for (const format of OTHER_FORMATS)
    if (['csv', ...OTHER_FORMATS].every((other) => other === format || beats(format, other as ExportFormat)))
      return format;
  return 'csv';
}

/** The `Content-Type` of an answer: text formats say their charset. */
export const contentTypeOf = (format: ExportFormat) =>
  format === 'csv' || format === 'ndjson' ? `${MEDIA_TYPES[format]}; charset=utf-8` : MEDIA_TYPES[format];

const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Waits (a few turns of the event loop at most) until the response's head and first bytes are on
 * their way, so that the answer starts before the first page is read: on PGlite a statement holds
 * the service's thread while it runs.
 */
async function sent(reply: FastifyReply): Promise<void> {
  for (let i = 0; i < 50 && !reply.raw.headersSent; i++) await tick();
  await tick();
}

/**
 * Answers an export as a stream: the filters are checked first (a 400 is still a JSON error),
 * then the header row goes out at once and each page of rows as it is read. When the client goes
 * away the reading stops (the output is destroyed and the reader sees it between pages). An error
 * after the first byte cannot change the status any more: the response is cut short (the client
 * sees an incomplete chunked body) and the error is logged.
 */
export async function sendExport(
  request: FastifyRequest,
  reply: FastifyReply,
  { database, gate, heavy, lane }: ExportDeps,
  prepare: (tx: Tx, caller: Caller) => Promise<ExportPlan>,
) {
  const place = await admit(request, reply, gate);
  let plan: ExportPlan;
  try {
    plan = await request.tenant(prepare);
  } catch (error) {
    await place.leave();
    throw error;
  }
  const format = formatOf(request.headers.accept);
  const out = new PassThrough({ highWaterMark: 64 * 1024 });
  const signal = clientGone(request, reply);
  signal.addEventListener('abort', () => out.destroy(), { once: true });
  const bom = (request.query as { bom?: boolean } | undefined)?.bom ?? true;
  const modified = request.server.clock();
  const organizationId = callerOf(request).organizationId;
  let produce: () => Promise<void>;
  const url = database.serverUrl;
  if (url) {
    // PostgreSQL: the whole export runs in a worker, its rows read by the worker itself: XLSX and
    // Parquet in the heavy pool (decision 0227; it waits for its organization's turn before
    // anything is read), CSV and NDJSON in the export lane (decision 0235).
    const heavyFormat = OFF_LOOP_FORMATS.has(format);
    const job = workerExport(
      heavyFormat ? { heavy } : { lane },
      {
        databaseUrl: url,
        // The lane runs the process's exports at once: as many connections as the gate has places.
        connections: heavyFormat ? 1 : gate.capacity(),
        organizationId,
        format,
        columns: plan.columns,
        sheetName: plan.name,
        modified,
        bom,
        source: plan.source,
      },
      out,
      signal,
    );
    try {
      await job.started;
    } catch (error) {
      await place.leave();
      throw error;
    }
    produce = async () => {
      await job.done();
      out.end();
    };
  } else {
    let writer: RowWriter;
    if (OFF_LOOP_FORMATS.has(format)) {
      // PGlite: encoded in the heavy pool, the rows read here (the one connection is this thread's).
      const off = offLoopWriter(
        heavy,
        {
          organizationId,
          format: format as 'xlsx' | 'parquet',
          columns: plan.columns,
          sheetName: plan.name,
          modified,
        },
        out,
        signal,
      );
      try {
        await off.started;
      } catch (error) {
        await place.leave();
        throw error;
      }
      writer = off.writer;
    } else writer = createWriter(format, out, { sheetName: plan.name, bom, modified });
    produce = async () => {
      await writer.start(plan.columns);
      await sent(reply);
      await plan.write(database.engine, streamRun(request, database), signal, writer);
      await writer.end();
      out.end();
    };
  }
  const producer = produce().catch((error: unknown) => {
    if (!(error instanceof ExportCancelled) && !signal.aborted)
      request.log.error({ err: error }, 'export failed');
    out.destroy();
  });
  place.hold(producer);
  return reply
    .type(contentTypeOf(format))
    .header('content-disposition', attachment(`${plan.name}.${format}`))
    .header('cache-control', 'no-store')
    .send(out);
}
