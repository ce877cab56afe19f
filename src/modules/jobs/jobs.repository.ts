import { sql } from 'kysely';
import type { Queryable, Tx } from '../../db/client.ts';

/** A job as a worker holds it after claiming it. */
export interface ClaimedJob {
  id: string;
  kind: string;
  organization_id: string | null;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
}

/** A new job: what to do, for whom, and how many attempts it gets. */
export interface NewJob {
  kind: string;
  organizationId: string | null;
  payload: Record<string, unknown>;
  maxAttempts: number;
  /** Not before this time; unset: now (the database's time). */
  runAfter?: Date;
}

/**
 * The jobs table (decision 216). Workers compare with their clock's time; new jobs are due at
 * the database's time unless told otherwise.
 */
export const jobsRepository = {
  /** Adds jobs in the caller's transaction: they exist only if that transaction commits. */
  async insert(tx: Tx, jobs: readonly NewJob[]): Promise<string[]> {
    if (jobs.length === 0) return [];
    const rows = jobs.map((j) => ({
      kind: j.kind,
      organization_id: j.organizationId,
      payload: j.payload,
      max_attempts: j.maxAttempts,
      run_after: j.runAfter?.toISOString() ?? null,
    }));
    const result = await sql<{ id: string }>`
      INSERT INTO jobs (kind, organization_id, payload, max_attempts, run_after, created_at)
      SELECT kind, organization_id, payload, max_attempts, coalesce(run_after, now()), now()
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS x(kind text, organization_id uuid, payload jsonb, max_attempts integer, run_after timestamptz)
      RETURNING id`.execute(tx);
    return result.rows.map((r) => r.id);
  },

  /**
   * Claims up to `limit` due jobs of the given kinds for `worker`: queued ones whose time has
   * come and running ones whose lease ran out (their worker died). SKIP LOCKED lets several
   * workers claim at once without waiting for or taking each other's rows.
   */
  async claim(tx: Tx, kinds: readonly string[], worker: string, now: Date, leaseEnd: Date, limit: number) {
    const result = await sql<ClaimedJob>`
      UPDATE jobs j SET state = 'running', attempts = j.attempts + 1, run_after = ${leaseEnd},
             locked_by = ${worker}
        FROM (SELECT id FROM jobs
               WHERE state IN ('queued', 'running') AND run_after <= ${now} AND kind = ANY(${kinds}::text[])
               ORDER BY run_after LIMIT ${limit} FOR UPDATE SKIP LOCKED) due
       WHERE j.id = due.id
      RETURNING j.id, j.kind, j.organization_id, j.payload, j.attempts, j.max_attempts`.execute(tx);
    return result.rows;
  },

  /**
   * Ends an attempt: `done`, `failed`, or back to `queued` at `runAfter`. Only the claim that
   * is still current may end it (a worker whose lease ran out and was claimed again may not).
   */
  async finish(
    tx: Tx,
    job: ClaimedJob,
    worker: string,
    outcome: { state: 'done' | 'failed' | 'queued'; runAfter?: Date; error?: string },
    now: Date,
  ): Promise<boolean> {
    const result = await sql`
      UPDATE jobs SET state = ${outcome.state}, locked_by = NULL, last_error = ${outcome.error ?? null},
             run_after = coalesce(${outcome.runAfter ?? null}::timestamptz, run_after),
             finished_at = CASE WHEN ${outcome.state} IN ('done', 'failed') THEN ${now}::timestamptz END
       WHERE id = ${job.id} AND locked_by = ${worker} AND attempts = ${job.attempts}`.execute(tx);
    return Number(result.numAffectedRows ?? 0) > 0;
  },

  /** Moves a running job's lease on, while its claim is still current (the worker lives). */
  async extend(tx: Tx, job: ClaimedJob, worker: string, leaseEnd: Date): Promise<void> {
    await sql`
      UPDATE jobs SET run_after = ${leaseEnd}
       WHERE id = ${job.id} AND state = 'running' AND locked_by = ${worker} AND attempts = ${job.attempts}`.execute(tx);
  },

  /** Adds the job of a time slot unless a process already did (`singleton_key` is unique). */
  async offer(tx: Tx, kind: string, key: string, maxAttempts: number, runAfter: Date): Promise<void> {
    await sql`
      INSERT INTO jobs (kind, singleton_key, max_attempts, run_after, created_at)
      VALUES (${kind}, ${key}, ${maxAttempts}, ${runAfter}, ${runAfter})
      ON CONFLICT (singleton_key) WHERE singleton_key IS NOT NULL DO NOTHING`.execute(tx);
  },

  /** Jobs by kind and state (metrics). */
  async counts(db: Queryable) {
    const result = await sql<{ kind: string; state: string; n: string }>`
      SELECT kind, state, count(*) AS n FROM jobs GROUP BY kind, state`.execute(db);
    return result.rows.map((r) => ({ kind: r.kind, state: r.state, count: Number(r.n) }));
  },

  /** Removes finished jobs that ended before `before` (done and failed alike). */
  async prune(tx: Tx, before: Date) {
    await sql`DELETE FROM jobs WHERE state IN ('done', 'failed') AND finished_at < ${before}`.execute(tx);
  },
};
