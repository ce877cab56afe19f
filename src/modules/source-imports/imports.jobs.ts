import type { Caller } from '../../domain/caller.ts';
import { AppError } from '../../domain/errors.ts';
import { idempotencyConflict } from '../../http/idempotency.ts';
import type { TenantRun } from '../values/index.ts';
import { canonicalHashCooperative } from './canonical.ts';
import { importsRepository as repo } from './imports.repository.ts';
import type { ImportAccepted, ImportBody } from './imports.schemas.ts';
import { checkRequest, type ImportDeps, runImport } from './imports.service.ts';
import { presentRun, type RunRow } from './source-imports.present.ts';

/**
 * Imports answered at once (decision 0226): with `Prefer: respond-async`, POST /source-imports
 * checks what it can refuse before a run exists (the row limit, the definition and its version),
 * claims the key with a pending run, answers 202 with the run and its Location, and runs the
 * import after the answer; the client polls GET /source-imports/{runId} until the run is
 * `completed`, `previewed` or `failed`. The request holds neither its connection nor its client
 * for the seconds a large import takes. A retry with the same key and body answers the same run
 * (202, `replayed: true`); another body with the key is 409.
 */
export class BackgroundImports {
  readonly #running = new Set<Promise<void>>();
  readonly #stop = new AbortController();

  /** Accepts an import: its run (claimed now, or the one that holds the key) and whether it was new. */
  async accept(
    run: TenantRun,
    caller: Caller,
    key: string,
    body: ImportBody,
    deps: ImportDeps,
  ): Promise<{ answer: ImportAccepted; start?: () => void }> {
    const org = caller.organizationId;
    const fingerprint = deps.fingerprint ?? (await canonicalHashCooperative(body));
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
      return { id: created.id, replayed: false };
    });
    const row = await run((tx) => repo.find(tx, org, claimed.id));
    const answer: ImportAccepted = { run: presentRun(row as RunRow), replayed: claimed.replayed };
    if (claimed.replayed) return { answer };
    // The import runs once the answer is sent: not tied to the client, stopped when the service stops.
    const start = () =>
      this.#track(this.#runClaimed(run, caller, key, body, claimed.id, { ...deps, fingerprint }));
    return { answer, start };
  }

  /** Stops the imports running (their work is undone, their runs failed) and waits for them. */
  async close(): Promise<void> {
    this.#stop.abort();
    await Promise.allSettled([...this.#running]);
  }

  /** Waits for the imports running now (tests). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#running]);
  }

  #track(work: Promise<void>): void {
    this.#running.add(work);
    void work.finally(() => this.#running.delete(work));
  }

  async #runClaimed(
    run: TenantRun,
    caller: Caller,
    key: string,
    body: ImportBody,
    runId: string,
    deps: ImportDeps,
  ): Promise<void> {
    const org = caller.organizationId;
    try {
      await run((tx) => repo.setStatus(tx, org, runId, 'processing'));
      await runImport(run, caller, key, body, { ...deps, signal: this.#stop.signal, claimedRunId: runId });
    } catch (e) {
      // What the import refused or failed on is the run's error; the key is given up for a retry.
      if (!(e instanceof AppError)) deps.log(e);
      const error =
        e instanceof AppError
          ? [e.message, ...(e.issues ?? []).map((i) => i.message)].join('; ')
          : 'The import could not be finished (see the service log); nothing was written';
      await run((tx) =>
        repo.finish(tx, org, runId, {
          status: 'failed',
          totalRows: body.sheets.reduce((n, s) => n + s.rows.length, 0),
          draftCount: 0,
          issueCount: 0,
          activityWrites: 0,
          formValueWrites: 0,
          counts: {},
          error,
          processed: true,
          releaseKey: true,
        }),
      ).catch((failure: unknown) => deps.log(failure));
    }
  }
}
