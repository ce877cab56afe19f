import type { Tx } from '../../db/client.ts';
import type { SourceImportStatus } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { AppError, badRequest, coded, notFound } from '../../domain/errors.ts';
import { idempotencyConflict } from '../../http/idempotency.ts';
import { pageOf, paginationOf } from '../../http/paging.ts';
import { isUuid } from '../../lib/ids.ts';
import { type CalcLimits, CalcSession, cancelled } from '../activities/index.ts';
import type { TenantRun } from '../values/index.ts';
import {
  type AttemptOutcome,
  attemptThenCompute,
  ComputeFirst,
  storeBatch,
  type ValuesPipeline,
  ValuesSessions,
} from '../values/index.ts';
import { webhookEvents } from '../webhooks/index.ts';
import { adaptersRepository } from './adapters.repository.ts';
import type { Mapping } from './adapters.schemas.ts';
import { canonicalHashCooperative } from './canonical.ts';
import { type Analysis, analyse, type RowsMemo } from './imports.pipeline.ts';
import { importsRepository as repo } from './imports.repository.ts';
import { type ImportBody, type ImportResult, MAX_ROWS } from './imports.schemas.ts';
import { batchOf, createFormSites } from './imports.store.ts';
import { presentRun, type RunRow } from './source-imports.present.ts';

/** The stored answer of a run holding the key, or a 409 telling why there is none to give. */
export function replay(
  existing: { fingerprint: string; response: unknown },
  fingerprint: string,
): ImportResult {
  if (existing.fingerprint !== fingerprint) throw idempotencyConflict('reused');
  if (!existing.response) throw idempotencyConflict('busy');
  return { ...(existing.response as ImportResult), replayed: true };
}

/** Checks what can be refused before a run exists: the row limit, the definition and its version. */
export async function checkRequest(tx: Tx, caller: Caller, body: ImportBody): Promise<Mapping> {
  const total = body.sheets.reduce((n, s) => n + s.rows.length, 0);
  if (total > MAX_ROWS) {
    const message = `The request holds ${total} rows; at most ${MAX_ROWS} are allowed in one import`;
    throw badRequest(message, [
      coded('import.tooManyRows', message, { rows: total, max: MAX_ROWS }, 'sheets'),
    ]);
  }
  const org = caller.organizationId;
  const id = body.sourceAdapterDefinitionId;
  const definition = isUuid(id) ? await adaptersRepository.find(tx, org, id.toLowerCase()) : undefined;
  if (!definition) {
    const message = 'sourceAdapterDefinitionId is not a source adapter definition of this organization';
    throw badRequest(message, [
      coded('import.definitionUnknown', message, undefined, 'sourceAdapterDefinitionId'),
    ]);
  }
  const version = await adaptersRepository.findVersion(tx, org, definition.id, body.adapterVersion);
  if (!version) {
    const message = 'adapterVersion is not a version of this source adapter definition';
    throw badRequest(message, [coded('import.versionUnknown', message, undefined, 'adapterVersion')]);
  }
  return version.mapping as Mapping;
}

const MAX_ISSUES_IN_ANSWER = 100;

/** A run in these states has not finished: its import may (still) be run. */
export const UNFINISHED: ReadonlySet<SourceImportStatus> = new Set(['pending', 'processing']);

/** What an import gets from the composition root, and what its attempts share. */
export interface ImportDeps {
  pipeline: ValuesPipeline;
  limits: CalcLimits;
  log: (error: unknown) => void;
  /** The body's canonical hash when its parser computed it already (off the loop, decision 0177). */
  fingerprint?: string | undefined;
  /** Aborted when the client goes away: the calculations stop and nothing is written. */
  signal?: AbortSignal | undefined;
  /**
   * The run this import fills, claimed already (an import answered 202, imports.jobs.ts): its key
   * is not looked up again, and the run is finished by this attempt instead of claimed.
   */
  claimedRunId?: string | undefined;
}

/**
 * POST /source-imports: analyses the rows, claims the key (a concurrent duplicate waits on the
 * unique key, then replays), and for an execute writes every ready draft in one savepoint: all or
 * nothing. Preview and execute share `analyse`; only the write differs.
 *
 * In attempts, as every write that depends on calculations (`attemptThenCompute`): an attempt is
 * one transaction (`run`) that analyses, claims and writes; the rows' calculations run between
 * two attempts, with no transaction held (on PGlite the one connection stays free), and the next
 * attempt reuses the rows already checked while what they were checked against is unchanged.
 */
export async function runImport(
  run: TenantRun,
  caller: Caller,
  key: string,
  body: ImportBody,
  deps: ImportDeps,
): Promise<ImportResult> {
  const org = caller.organizationId;
  // The body's hash, with turns of the loop (decision 0165): the same as `canonicalHash(body)`.
  const fingerprint = deps.fingerprint ?? (await canonicalHashCooperative(body));
  const signal = deps.signal ?? new AbortController().signal;
  // One calculation session for the import: the rows are calculated once, to report their issues,
  // and the write reuses those results (one prepared runtime per definition).
  const calc = new CalcSession(org, run, signal, deps.limits);
  const sessions = new ValuesSessions(deps.pipeline.handlers, {
    organizationId: org,
    caller,
    run,
    signal,
    shared: calc,
  });
  const memo: RowsMemo = {};
  try {
    return await attemptThenCompute(run, async (tx): Promise<AttemptOutcome<ImportResult>> => {
      const runId = deps.claimedRunId;
      // A claimed run is locked first: a second process running it (the first thought dead) waits
      // here, then answers what the first stored instead of importing again.
      const current = runId ? await repo.lockRun(tx, org, runId) : undefined;
      if (current && !UNFINISHED.has(current.status)) return { done: replay(current, fingerprint) };
      const existing = runId ? undefined : await repo.findByKey(tx, org, caller.userId, key);
      if (existing) return { done: replay(existing, fingerprint) };
      const mapping = await checkRequest(tx, caller, body);
      // Reads only, so an attempt that must calculate first has nothing to undo.
      const analysis = await analyse(tx, caller, mapping, body, deps.pipeline, calc, memo, signal);
      if ('jobs' in analysis) return { compute: () => calc.compute(analysis.jobs) };
      const mode = body.mode ?? 'preview';
      signal.throwIfAborted();
      if (runId) return importRows(tx, caller, body, analysis, runId, mode, { ...deps, signal, sessions });
      const claimed = await repo.claim(tx, org, {
        userId: caller.userId,
        key,
        fingerprint,
        definitionId: body.sourceAdapterDefinitionId.toLowerCase(),
        version: body.adapterVersion,
        mode,
      });
      if (!claimed)
        return { done: replay((await repo.findByKey(tx, org, caller.userId, key))!, fingerprint) };
      return importRows(tx, caller, body, analysis, claimed.id, mode, { ...deps, signal, sessions });
    });
  } catch (e) {
    // The client went away (or the service stops): the transaction was undone, nothing is written.
    if (signal.aborted) throw deps.signal?.reason instanceof AppError ? deps.signal.reason : cancelled();
    throw e;
  } finally {
    await sessions.close();
    await calc.dispose();
  }
}

async function importRows(
  tx: Tx,
  caller: Caller,
  body: ImportBody,
  analysis: Analysis,
  runId: string,
  mode: 'preview' | 'execute',
  deps: ImportDeps & { sessions: ValuesSessions },
): Promise<{ done: ImportResult }> {
  const org = caller.organizationId;
  const missing = analysis.readiness.missingFormSites;
  const blocked = mode === 'execute' && missing.length > 0 && !body.allowMissingFormSiteCreation;
  let status: SourceImportStatus = mode === 'execute' && !blocked ? 'completed' : 'previewed';
  let message: string | null = blocked
    ? `Nothing was written: ${missing.length} form-site(s) are not active (see readiness); send allowMissingFormSiteCreation: true to create them`
    : null;
  let error: string | null = null;
  let writes = { formValues: 0, activities: 0 };
  if (status === 'completed' && analysis.drafts.length > 0) {
    await repo.setStatus(tx, org, runId, 'processing');
    try {
      const written = await write(tx, caller, analysis, deps, runId, body.sheets);
      // The claim is written: this attempt is undone before the calculations run again.
      if ('compute' in written) throw new ComputeFirst(written.compute);
      writes = written.done;
    } catch (e) {
      if (e instanceof ComputeFirst || deps.signal?.aborted) throw e;
      deps.log(e);
      status = 'failed';
      error =
        e instanceof AppError
          ? [e.message, ...(e.issues ?? []).map((i) => i.message)].join('; ')
          : 'The import could not be written (see the service log); nothing was written';
      message = error;
    }
  }
  const imported = writes.formValues + writes.activities;
  const counts = { ...analysis.counts, imported };
  const row = await repo.finish(tx, org, runId, {
    status,
    totalRows: counts.total,
    draftCount: counts.ready,
    issueCount: analysis.issues.length,
    activityWrites: writes.activities,
    formValueWrites: writes.formValues,
    counts,
    error,
    processed: status === 'completed' || status === 'failed',
    releaseKey: status === 'failed',
  });
  await repo.insertIssues(tx, org, runId, analysis.issues);
  // An accepted import's request is kept until now (decision 0234).
  if (deps.claimedRunId) await repo.dropRequest(tx, org, runId);
  const result: ImportResult = {
    run: presentRun(row as RunRow),
    adapterVersion: body.adapterVersion,
    counts,
    replayed: false,
    execution: { attempted: mode === 'execute', blocked, message, readiness: analysis.readiness },
    issues: analysis.issues.slice(0, MAX_ISSUES_IN_ANSWER),
  };
  await repo.storeResponse(tx, org, runId, result);
  if (mode === 'execute' && !blocked) await webhookEvents.importFinished(tx, org, result.run, counts);
  return { done: result };
}

/**
 * Writes the drafts through the values pipeline inside a savepoint: if anything raises, nothing of
 * them stays. When the pipeline is not ready (what the calculations used has changed since
 * `analyse` checked it), nothing is kept and the work to do before the next attempt is returned.
 */
async function write(
  tx: Tx,
  caller: Caller,
  analysis: Analysis,
  deps: ImportDeps & { sessions: ValuesSessions },
  runId: string,
  sheets: ImportBody['sheets'],
): Promise<AttemptOutcome<{ formValues: number; activities: number }>> {
  const org = caller.organizationId;
  return repo.inSavepoint<AttemptOutcome<{ formValues: number; activities: number }>>(tx, async () => {
    await createFormSites(tx, org, analysis.readiness.missingFormSites);
    // Each value's run and rows (for the exports) are written with it.
    const { batch, formValues, activities } = await batchOf(
      tx,
      org,
      analysis.drafts,
      runId,
      sheets.map((s) => s.name),
      deps.signal,
    );
    const stored = await storeBatch(tx, deps.pipeline, caller, batch, deps.sessions, {
      answer: false,
      checked: true,
    });
    if ('compute' in stored) return { keep: false, value: stored };
    // Written, but no longer wanted: undone here (and the import's transaction with it).
    deps.signal?.throwIfAborted();
    return { keep: true, value: { done: { formValues, activities } } };
  });
}

export async function listRuns(tx: Tx, caller: Caller, query: { limit?: number; offset?: number }) {
  const page = pageOf(query);
  const { total, rows } = await repo.list(tx, caller.organizationId, page);
  return {
    items: rows.map((r) => presentRun(r as RunRow)),
    pagination: paginationOf(page, rows.length, total),
  };
}

export async function getRun(tx: Tx, caller: Caller, id: string, query: { limit?: number; offset?: number }) {
  const row = isUuid(id) ? await repo.find(tx, caller.organizationId, id.toLowerCase()) : undefined;
  if (!row) throw notFound('Source import run');
  const page = pageOf(query);
  const items = await repo.issues(tx, caller.organizationId, row.id, page);
  return {
    run: presentRun(row as RunRow),
    adapterVersion: row.adapter_version,
    counts: { total: 0, parsed: 0, ready: 0, imported: 0, reduced: 0, skipped: 0, failed: 0, ...row.counts },
    issues: { items, pagination: paginationOf(page, items.length, row.issue_count) },
  };
}
