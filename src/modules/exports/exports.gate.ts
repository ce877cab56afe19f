import type { FastifyReply } from 'fastify';
import type { Caller } from '../../domain/caller.ts';
import { AppError } from '../../domain/errors.ts';

/** Seconds a refused export is told to wait (`Retry-After`): about what a large export takes. */
export const EXPORT_RETRY_AFTER_SECONDS = 10;

export interface ExportLimits {
  /** Exports at once per caller: a user (whatever the token) or an API key. */
  perCaller: number;
  /** Exports at once per organization. */
  perOrganization: number;
  /** Exports at once in the process: the stream pool's size, so none waits for a connection. */
  total: number;
}

/** Why an export was refused: the caller's limit, the organization's, or the process's places. */
export type ExportRefusal = 'caller' | 'organization' | 'capacity';

/** What every gate of this process has counted (metrics read it with `exportGateStats`). */
const figures = { running: 0, refused: { caller: 0, organization: 0, capacity: 0 } };

/** Exports running now in this process, and those refused since it started, by reason. */
export function exportGateStats(): { running: number; refused: Record<ExportRefusal, number> } {
  return { running: figures.running, refused: { ...figures.refused } };
}

/** The caller an export is counted against: the API key, or the person behind a token. */
const callerKey = (caller: Caller) =>
  caller.credential.kind === 'apikey' ? `key:${caller.credential.id}` : `user:${caller.userId}`;

/**
 * Counts the exports running in this process per caller, per organization and in all, and refuses
 * one beyond a limit before it reads anything: 429 (`TOO_MANY_REQUESTS`) for the caller's or the
 * organization's limit, 503 when every stream connection is taken; both with `Retry-After`.
 * Counters are in memory and per process: they bound what this process holds (its stream pool).
 */
export class ExportGate {
  readonly #callers = new Map<string, number>();
  readonly #organizations = new Map<string, number>();
  #total = 0;

  constructor(private readonly limits: ExportLimits) {}

  /** Takes a place for `caller`'s export or throws; the function returned gives it back (once). */
  enter(caller: Caller, reply: FastifyReply): () => void {
    const who = callerKey(caller);
    const org = caller.organizationId;
    const refuse = (error: AppError, reason: ExportRefusal) => {
      figures.refused[reason]++;
      reply.header('retry-after', String(EXPORT_RETRY_AFTER_SECONDS));
      return error;
    };
    const mine = this.#callers.get(who) ?? 0;
    if (mine >= this.limits.perCaller) {
      throw refuse(
        new AppError(
          'TOO_MANY_REQUESTS',
          `You already have ${mine} exports running, the most one ${caller.credential.kind === 'apikey' ? 'API key' : 'user'} may run at once; try again when one has finished`,
        ),
        'caller',
      );
    }
    const ours = this.#organizations.get(org) ?? 0;
    if (ours >= this.limits.perOrganization) {
      throw refuse(
        new AppError(
          'TOO_MANY_REQUESTS',
          `Your organization already has ${ours} exports running, the most it may run at once; try again when one has finished`,
        ),
        'organization',
      );
    }
    if (this.#total >= this.limits.total) {
      throw refuse(
        new AppError(
          'SERVICE_UNAVAILABLE',
          'Every export place of the service is taken by running exports; try again shortly',
        ),
        'capacity',
      );
    }
    this.#callers.set(who, mine + 1);
    this.#organizations.set(org, ours + 1);
    this.#total++;
    figures.running++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#total--;
      figures.running--;
      decrement(this.#callers, who);
      decrement(this.#organizations, org);
    };
  }

  /** Exports running now (tests, metrics). */
  running(): number {
    return this.#total;
  }
}

function decrement(counts: Map<string, number>, key: string) {
  const n = (counts.get(key) ?? 1) - 1;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}
