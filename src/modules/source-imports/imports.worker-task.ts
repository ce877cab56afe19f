/**
 * The heavy-work task that runs a large import in a worker thread (`source-import`, served by
 * src/heavy-worker.ts; decision 0233). On PostgreSQL the worker opens a connection of its own and
 * runs the same `runImport` the request loop runs (attempts, analysis, the key's claim, the write
 * through the values pipeline, the run's answer, the webhook event: one transaction or nothing),
 * with the tenant's settings and role set by the same `Database.tenant`, so row-level security
 * applies as on the loop. The request loop only feeds the rows and waits for the answer.
 */
import { Database } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import type { ValuesPipeline } from '../values/index.ts';
import type { StoredBody } from './imports.offload.ts';
import { importsRepository as repo } from './imports.repository.ts';
import type { ImportBody, ImportResult } from './imports.schemas.ts';
import { runImport } from './imports.service.ts';

export interface ImportTaskInput {
  /** The PostgreSQL server (`Database.serverUrl`). */
  databaseUrl: string;
  /** The service's calculation budget of a request (the ACTIVITY handler's), and the import's. */
  calcRequestBudgetMs: number;
  importCalcBudgetMs: number;
  caller: Caller;
  key: string;
  /**
   * The body with its sheets' rows left out (they come as the job's input, `ImportRowsPart`), or
   * an accepted import's run whose kept body the worker reads itself (decision 0234).
   */
  body: ImportBody | StoredBody;
  fingerprint: string | undefined;
  claimedRunId: string | undefined;
}

/** Rows of sheet `sheet` (its index in the body), in order. */
export interface ImportRowsPart {
  sheet: number;
  rows: ImportBody['sheets'][number]['rows'];
}

export interface ImportTaskOutcome {
  result: ImportResult;
  /** What the import logged (a write that failed), for the service's log on the main thread. */
  logged: string[];
}

/** The worker's connections, one pool per server, opened at the first import and kept. */
const databases = new Map<string, Promise<Database>>();

function databaseOf(url: string): Promise<Database> {
  let database = databases.get(url);
  if (!database) {
    // Two connections: an attempt's transaction, and a calculation's coefficient lookup between
    // attempts (none runs inside the other; PGlite runs the same code on one connection).
    database = Database.open({ databaseUrl: url, poolSize: 2, streamPoolSize: 1 });
    databases.set(url, database);
    database.catch(() => databases.delete(url));
  }
  return database;
}

/** The task, given how the worker builds the service's values pipeline (src/values-pipeline.ts). */
export function sourceImportTask(pipelineOf: (calcRequestBudgetMs: number) => ValuesPipeline) {
  return async (
    input: ImportTaskInput,
    _emit: (part: unknown) => Promise<void>,
    feed: AsyncIterable<unknown>,
    cancelled: AbortSignal,
  ): Promise<ImportTaskOutcome> => {
    const { caller } = input;
    const org = caller.organizationId;
    const database = await databaseOf(input.databaseUrl);
    let body: ImportBody;
    if ('stored' in input.body) {
      const { runId } = input.body.stored;
      const text = await database.tenant(org, (tx) => repo.requestBody(tx, org, runId));
      if (text === undefined) throw new Error(`The request of import run ${runId} is gone`);
      body = JSON.parse(text) as ImportBody;
    } else {
      body = input.body;
      for await (const part of feed as AsyncIterable<ImportRowsPart>) {
        const rows = body.sheets[part.sheet]!.rows;
        for (const row of part.rows) rows.push(row);
      }
    }
    const logged: string[] = [];
    const result = await runImport(
      (fn) => database.tenant(org, fn),
      caller,
      input.key,
      body,
      {
        pipeline: pipelineOf(input.calcRequestBudgetMs),
        limits: { budgetMs: input.importCalcBudgetMs },
        log: (e) => logged.push(e instanceof Error ? (e.stack ?? e.message) : String(e)),
        fingerprint: input.fingerprint,
        signal: cancelled,
        claimedRunId: input.claimedRunId,
      },
    );
    return { result, logged };
  };
}
