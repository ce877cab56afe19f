import type { Caller } from '../../domain/caller.ts';
import { AppError } from '../../domain/errors.ts';
import { idempotencyConflict } from '../../http/idempotency.ts';
import type { Services } from '../../http/services.ts';
import { nextTurn } from '../../lib/turns.ts';
import { type ClaimedJob, type JobHandler, jobs } from '../jobs/index.ts';
import type { TenantRun } from '../values/index.ts';
import { canonicalHashCooperative } from './canonical.ts';
import { type ImportRunner, importLimits, importRunner } from './imports.offload.ts';
import { importsRepository as repo } from './imports.repository.ts';
import type { ImportAccepted, ImportBody } from './imports.schemas.ts';
import { checkRequest, type ImportDeps, UNFINISHED } from './imports.service.ts';
import { presentRun, type RunRow } from './source-imports.present.ts';

/** The job that runs an accepted import (decision 0234). */
export const IMPORT_JOB = 'source-import.run';

/**
 * Attempts of an accepted import's job: a process that dies under it leaves the job to another
 * (after its lease); one that keeps dying (or a service stopped again and again) fails the run.
 */
export const IMPORT_ATTEMPTS = 5;

/** Rows stringified between two turns of the loop when the body is kept. */
const ROWS_PER_SLICE = 500;

/** The body as JSON text, a slice of rows at a time (a 10 MiB body is not one piece of work). */
export async function bodyText(body: ImportBody): Promise<string> {
  const sheets: string[] = [];
  for (const { rows, ...sheet } of body.sheets) {
    const parts: string[] = [];
    for (let at = 0; at < rows.length; at += ROWS_PER_SLICE) {
      parts.push(JSON.stringify(rows.slice(at, at + ROWS_PER_SLICE)).slice(1, -1));
      await nextTurn();
    }
    // `{…,"rows":[]}` without its `[]}`, then the rows.
    sheets.push(`${JSON.stringify({ ...sheet, rows: [] }).slice(0, -3)}[${parts.join(',')}]}`);
  }
  const { sheets: _, ...rest } = body;
  return `${JSON.stringify({ ...rest, sheets: [] }).slice(0, -3)}[${sheets.join(',')}]}`;
}

/**
 * Imports answered at once (decisions 0226, 0234): with `Prefer: respond-async`, POST /source-imports
 * checks what it can refuse before a run exists (the row limit, the definition and its version),
 * then, in one transaction, claims the key with a pending run, keeps the request beside it and
 * queues an `IMPORT_JOB`: the job exists exactly when the run does, and any process of the
 * service runs it (a process that dies under it leaves it to another). The client polls
 * GET /source-imports/{runId} until the run is `completed`, `previewed` or `failed`. A retry with
 * the same key and body answers the same run (202, `replayed: true`); another body is 409.
 */
export async function acceptImport(
  run: TenantRun,
  caller: Caller,
  key: string,
  body: ImportBody,
  deps: Pick<ImportDeps, 'fingerprint'>,
): Promise<ImportAccepted> {
  const org = caller.organizationId;
  const fingerprint = deps.fingerprint ?? (await canonicalHashCooperative(body));
  const text = await bodyText(body);
  const claimed = await run(async (tx) => {
    const existing = await repo.findByKey(tx, org, caller.userId, key);
    if (existing) {
      if (existing.fingerprint !== fingerprint) throw idempotencyConflict('reused');
      return { id: existing.id, replayed: true };
    }
    await checkRequest(tx, caller, body);
    const created = await repo.claim(tx, org, {
      userId: caller.userId,
      key,
      fingerprint,
      definitionId: body.sourceAdapterDefinitionId.toLowerCase(),
      version: body.adapterVersion,
      mode: body.mode ?? 'preview',
    });
    // A concurrent first request holds the key (it committed first): the retry answers its run.
    if (!created) {
      const holder = (await repo.findByKey(tx, org, caller.userId, key))!;
      if (holder.fingerprint !== fingerprint) throw idempotencyConflict('reused');
      return { id: holder.id, replayed: true };
    }
    const rows = body.sheets.reduce((n, s) => n + s.rows.length, 0);
    await repo.saveRequest(tx, org, created.id, { caller, key, rows, body: text });
    await jobs.enqueue(tx, [
      { kind: IMPORT_JOB, organizationId: org, payload: { runId: created.id }, maxAttempts: IMPORT_ATTEMPTS },
    ]);
    return { id: created.id, replayed: false };
  });
  const row = await run((tx) => repo.find(tx, org, claimed.id));
  return { run: presentRun(row as RunRow), replayed: claimed.replayed };
}

/** What the job handler needs: the database's tenant transactions, the import's runner and deps. */
export interface ImportJobDeps extends Omit<ImportDeps, 'signal' | 'fingerprint' | 'claimedRunId'> {
  tenant: (organizationId: string) => TenantRun;
  runImport: ImportRunner;
  /** Aborted when the service stops: the import is undone and its job left for another process. */
  stop: AbortSignal;
}

/**
 * Runs an accepted import's job: the run's import through `runImport` (in a heavy worker on
 * PostgreSQL for a large one), with the run already claimed, so one transaction writes the
 * values, finishes the run, stores its answer and drops the kept request, all or nothing. What
 * the import refused or failed on is the run's `error`, and its key is given up (as a
 * synchronous failed write does). A stopping service undoes the import and puts the run back to
 * `pending`: the job runs again, here or in another process.
 */
export function importJobHandler(deps: ImportJobDeps): JobHandler {
  return async (job: ClaimedJob) => {
    const org = job.organization_id!;
    const runId = String(job.payload['runId']);
    const run = deps.tenant(org);
    const state = await run(async (tx) => {
      const current = await repo.lockRun(tx, org, runId);
      const request = await repo.findRequest(tx, org, runId);
      if (!current || !UNFINISHED.has(current.status) || !request) {
        if (request) await repo.dropRequest(tx, org, runId);
        return undefined;
      }
      return { fingerprint: current.fingerprint, request };
    });
    if (!state) return;
    const { request, fingerprint } = state;
    if (job.attempts > job.max_attempts) {
      await failRun(run, org, runId, request.row_count, 'The import stopped its service too many times; nothing was written');
      return;
    }
    await run((tx) => repo.setStatus(tx, org, runId, 'processing'));
    try {
      await deps.runImport(
        run,
        request.caller as Caller,
        request.idempotency_key,
        { stored: { runId, rows: request.row_count } },
        { ...deps, fingerprint, signal: deps.stop, claimedRunId: runId },
      );
    } catch (e) {
      if (deps.stop.aborted) {
        await run((tx) => repo.setStatus(tx, org, runId, 'pending')).catch(() => undefined);
        throw new Error('The service stopped during the import; it runs again');
      }
      // What the import refused or failed on is the run's error; the key is given up for a retry.
      if (!(e instanceof AppError)) deps.log(e);
      const error =
        e instanceof AppError
          ? [e.message, ...(e.issues ?? []).map((i) => i.message)].join('; ')
          : 'The import could not be finished (see the service log); nothing was written';
      await failRun(run, org, runId, request.row_count, error);
    }
  };
}

/** Finishes a run that has not finished as failed, gives its key up and drops its request. */
async function failRun(run: TenantRun, org: string, runId: string, rows: number, error: string) {
  await run(async (tx) => {
    const current = await repo.lockRun(tx, org, runId);
    if (!current || !UNFINISHED.has(current.status)) return;
    await repo.finish(tx, org, runId, {
      status: 'failed',
      totalRows: rows,
      draftCount: 0,
      issueCount: 0,
      activityWrites: 0,
      formValueWrites: 0,
      counts: {},
      error,
      processed: true,
      releaseKey: true,
    });
    await repo.dropRequest(tx, org, runId);
  });
}

/**
 * The accepted imports' job as the composition root registers it: its kind, its handler (over the
 * service's database, heavy-work pool and pipeline) and what stops it when the service stops.
 */
export function acceptedImportsJob(
  services: Pick<Services, 'database' | 'config' | 'heavy' | 'pipeline' | 'importsOffLoop'>,
  log: (error: unknown) => void,
): { kind: string; handler: JobHandler; stop: () => void } {
  const stop = new AbortController();
  const { database, heavy, importsOffLoop, pipeline, config } = services;
  const handler = importJobHandler({
    tenant: (organizationId) => (fn) => database.tenant(organizationId, fn),
    runImport: importRunner(heavy, importsOffLoop),
    pipeline,
    limits: importLimits(config),
    log,
    stop: stop.signal,
  });
  return { kind: IMPORT_JOB, handler, stop: () => stop.abort() };
}
