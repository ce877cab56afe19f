import { AppError } from '../../domain/errors.ts';
import type { HeavyWork } from '../../lib/heavy/pool.ts';
import { nextTurn } from '../../lib/turns.ts';
import { cancelled } from '../activities/index.ts';
import type { TenantRun } from '../values/index.ts';
import type { ImportBody, ImportResult } from './imports.schemas.ts';
import { importsRepository as repo } from './imports.repository.ts';
import { type ImportDeps, runImport } from './imports.service.ts';
import type { ImportRowsPart, ImportTaskInput, ImportTaskOutcome } from './imports.worker-task.ts';

/** Where large imports run off the request loop (decision 0233): set on PostgreSQL only. */
export interface ImportsOffLoop {
  /** The server a heavy worker connects to (`Database.serverUrl`). */
  databaseUrl: string;
  /** Imports of at least this many rows run in a worker (SDCS_IMPORT_WORKER_ROWS). */
  minRows: number;
  /** The service's calculation budget of a request (the worker's ACTIVITY handler takes it). */
  calcRequestBudgetMs: number;
}

// Given by the composition root when the service's pipeline is the one a worker builds (no slot
// guard added by a test) and the database a server.
declare module '../../http/services.ts' {
  interface Services {
    importsOffLoop: ImportsOffLoop | undefined;
  }
}

/** An accepted import's body, kept with its run (decision 0234): read by whoever runs it. */
export interface StoredBody {
  stored: { runId: string; rows: number };
}

/** Runs an import, in a heavy worker or on the loop: the same answers either way. */
export type ImportRunner = (
  run: TenantRun,
  caller: Parameters<typeof runImport>[1],
  key: string,
  body: ImportBody | StoredBody,
  deps: ImportDeps,
) => Promise<ImportResult>;

/** The body an accepted import kept (parsed on the loop: the embedded database, or a small import). */
async function storedBody(run: TenantRun, organizationId: string, runId: string): Promise<ImportBody> {
  const text = await run((tx) => repo.requestBody(tx, organizationId, runId));
  if (text === undefined) throw new Error(`The request of import run ${runId} is gone`);
  return JSON.parse(text) as ImportBody;
}

/** An import's calculations may take this long in all (or the configured request budget, if longer). */
const IMPORT_CALC_BUDGET_MS = 120_000;

/** The calculation limits of an import. */
export const importLimits = (config: { calcRequestBudgetMs: number }) => ({
  budgetMs: Math.max(config.calcRequestBudgetMs, IMPORT_CALC_BUDGET_MS),
});

/** Rows sent to the worker per input part: each is cloned in one piece on the loop (~1 ms). */
const ROWS_PER_PART = 500;

/**
 * What an import is expected to hold in the worker, for the heavy pool's memory budget: its rows
 * as objects, their resolved candidates, drafts and statement parameters (~4 KiB a row).
 */
const BYTES_PER_ROW = 4096;
const MIN_BYTES = 16 * 1024 * 1024;

/**
 * An import's runner: on PostgreSQL, an import of `minRows` rows or more is a `source-import` job
 * of the heavy-work pool (the caller's organization's share, its turn across organizations), run
 * by a worker on its own connection; anything else runs `runImport` on the loop, as before.
 */
export function importRunner(heavy: HeavyWork, offLoop: ImportsOffLoop | undefined): ImportRunner {
  return async (run, caller, key, body, deps) => {
    const rows = 'stored' in body ? body.stored.rows : body.sheets.reduce((n, s) => n + s.rows.length, 0);
    if (!offLoop || rows < offLoop.minRows) {
      const whole = 'stored' in body ? await storedBody(run, caller.organizationId, body.stored.runId) : body;
      return runImport(run, caller, key, whole, deps);
    }
    const input: ImportTaskInput = {
      databaseUrl: offLoop.databaseUrl,
      calcRequestBudgetMs: offLoop.calcRequestBudgetMs,
      importCalcBudgetMs: deps.limits.budgetMs,
      caller,
      key,
      // A kept body is read by the worker; a request's rows follow as the job's input.
      body: 'stored' in body ? body : { ...body, sheets: body.sheets.map((s) => ({ ...s, rows: [] })) },
      fingerprint: deps.fingerprint,
      claimedRunId: deps.claimedRunId,
    };
    const job = heavy.stream<never, ImportTaskOutcome>({
      organizationId: caller.organizationId,
      task: 'source-import',
      input,
      bytes: Math.max(MIN_BYTES, rows * BYTES_PER_ROW),
      feed: true,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    // Awaited below; a refusal or failure while the rows are fed is raised there or by `feed`.
    job.result.catch(() => undefined);
    try {
      // The rows go as the job's input, a part at a time (each waits for room in the worker).
      for (const [sheet, s] of ('stored' in body ? [] : body.sheets).entries()) {
        for (let at = 0; at < s.rows.length; at += ROWS_PER_PART) {
          const part: ImportRowsPart = { sheet, rows: s.rows.slice(at, at + ROWS_PER_PART) };
          await job.feed(part);
          await nextTurn();
        }
      }
      job.end();
      const { result, logged } = await job.result;
      for (const line of logged) deps.log(new Error(line));
      return result;
    } catch (e) {
      // As on the loop: a client gone (or the service stopping) undid the import in the worker.
      if (deps.signal?.aborted) {
        await job.result.catch(() => undefined);
        throw deps.signal.reason instanceof AppError ? deps.signal.reason : cancelled();
      }
      throw e;
    }
  };
}
