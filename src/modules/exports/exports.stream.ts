import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Engine, Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { attachment, prefers } from '../../http/negotiation.ts';
import { clientGone, tenantRun } from '../../http/request-scope.ts';
import { createWriter, ExportCancelled, type ExportFormat, MEDIA_TYPES } from './exports.formats.ts';
import type { ExportPlan } from './exports.service.ts';

/**
 * The format an `Accept` header asks for: NDJSON or XLSX when preferred to the others, else CSV
 * (also for `*\/*`, no header, or types no export has: the service answers CSV rather than 406).
 */
export function formatOf(accept: string | undefined): ExportFormat {
  const beats = (a: ExportFormat, b: ExportFormat) => prefers(accept, MEDIA_TYPES[a], MEDIA_TYPES[b]);
  if (beats('ndjson', 'csv') && beats('ndjson', 'xlsx')) return 'ndjson';
  if (beats('xlsx', 'csv') && beats('xlsx', 'ndjson')) return 'xlsx';
  return 'csv';
}

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
  engine: Engine,
  prepare: (tx: Tx, caller: Caller) => Promise<ExportPlan>,
) {
  const plan = await request.tenant(prepare);
  const format = formatOf(request.headers.accept);
  const out = new PassThrough({ highWaterMark: 64 * 1024 });
  const signal = clientGone(request, reply);
  signal.addEventListener('abort', () => out.destroy(), { once: true });
  const writer = createWriter(format, out, plan.name);
  const produce = async () => {
    await writer.start(plan.columns);
    await sent(reply);
    await plan.write(engine, tenantRun(request), signal, writer);
    await writer.end();
    out.end();
  };
  produce().catch((error: unknown) => {
    if (!(error instanceof ExportCancelled) && !signal.aborted)
      request.log.error({ err: error }, 'export failed');
    out.destroy();
  });
  return reply
    .type(format === 'xlsx' ? MEDIA_TYPES.xlsx : `${MEDIA_TYPES[format]}; charset=utf-8`)
    .header('content-disposition', attachment(`${plan.name}.${format}`))
    .header('cache-control', 'no-store')
    .send(out);
}
