import type { Caller } from '../../domain/caller.ts';
import {
  type AttemptOutcome,
  attemptThenCompute,
  ComputeFirst,
  findOutliers,
  resolveValues,
  type SubmitAnswer,
  type SubmitBody,
  storeBatch,
  type TenantRun,
  type ValuesPipeline,
  ValuesSessions,
} from '../values/index.ts';
import { webhookEvents } from '../webhooks/index.ts';
import { claimKey, type KeyedAnswer, keepAnswer, type RequestKey } from './submissions.keys.ts';

/**
 * POST /form-submissions: resolves and checks the body (`resolveValues`), finds its outliers
 * (which do not refuse it), then stores it (`storeBatch`), in attempts (`attemptThenCompute`): each
 * attempt one transaction, resolving again what calculations done in between depended on.
 *
 * With an Idempotency-Key (decision 194), each attempt claims it first (`claimKey`): a key already
 * answered gives that answer again; the answer of this request is stored with the key before the
 * commit. An attempt that must calculate first rolls back (`ComputeFirst`), claim included, and a
 * refusal (any throw) leaves no key behind.
 */
export async function storeValues(
  pipeline: ValuesPipeline,
  run: TenantRun,
  caller: Caller,
  body: SubmitBody,
  signal: AbortSignal = new AbortController().signal,
  key?: RequestKey,
): Promise<KeyedAnswer<SubmitAnswer>> {
  const sessions = new ValuesSessions(pipeline.handlers, {
    organizationId: caller.organizationId,
    caller,
    run,
    signal,
  });
  try {
    return await attemptThenCompute(run, async (tx): Promise<AttemptOutcome<KeyedAnswer<SubmitAnswer>>> => {
      if (key) {
        const stored = await claimKey<SubmitAnswer>(tx, caller, key);
        if (stored) return { done: stored };
      }
      const batch = await resolveValues(tx, pipeline.handlers, caller, [body]);
      // Read before the batch writes: a reference is what was stored before this request.
      const [issues] = await findOutliers(tx, caller.organizationId, batch.entries, batch.units ?? new Map());
      const outcome = await storeBatch(tx, pipeline, caller, batch, sessions);
      if ('compute' in outcome) {
        // The claim is written: it goes with this attempt, before the calculations run.
        if (key) throw new ComputeFirst(outcome.compute);
        return outcome;
      }
      const answer: SubmitAnswer = { ...outcome.done[0]!, issues: issues! };
      await webhookEvents.valuesSubmitted(tx, answer);
      if (key) await keepAnswer(tx, caller, key, 200, answer);
      return { done: { status: 200, body: answer, replayed: false } };
    });
  } finally {
    await sessions.close();
  }
}
