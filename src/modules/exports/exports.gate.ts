import type { FastifyReply } from 'fastify';
import type { Caller } from '../../domain/caller.ts';
import { AppError } from '../../domain/errors.ts';
import { type InTenant, memoryPlaces, type PlaceBook } from './export-places.ts';

/** Seconds a refused export is told to wait (`Retry-After`): about what a large export takes. */
export const EXPORT_RETRY_AFTER_SECONDS = 10;

export interface ExportLimits {
  /** Exports at once per caller (a user, whatever the token, or an API key), across processes. */
  perCaller: number;
  /** Exports at once per organization, across processes. */
  perOrganization: number;
  /** Exports at once in the process: the stream pool's size, so none waits for a connection. */
  total: number;
}

/** Why an export was refused: the caller's limit, the organization's, or the process's places. */
export type ExportRefusal = 'caller' | 'organization' | 'capacity';

/** What every gate of this process has counted (metrics read it with `exportGateStats`). */
const figures = { running: 0, refused: { caller: 0, organization: 0, capacity: 0 } };
/** Exports running in this process per organization (the overload rule's load sources). */
const runningByOrganization = new Map<string, number>();

/** Exports running now in this process, and those refused since it started, by reason. */
export function exportGateStats(): { running: number; refused: Record<ExportRefusal, number> } {
  return { running: figures.running, refused: { ...figures.refused } };
}

/**
 * Whether `organizationId` has exports running in this process (any organization when omitted):
 * exports are heavy work for the overload rule (decision 205).
 */
export function exportsRunning(organizationId?: string): boolean {
  return organizationId === undefined
    ? runningByOrganization.size > 0
    : runningByOrganization.has(organizationId);
}

/** The caller an export is counted against: the API key, or the person behind a token. */
const callerKey = (caller: Caller) =>
  caller.credential.kind === 'apikey' ? `key:${caller.credential.id}` : `user:${caller.userId}`;

/**
 * Refuses an export beyond a limit before it reads anything: 429 (`TOO_MANY_REQUESTS`) for the
 * caller's or the organization's limit, 503 when every stream connection of this process is taken;
 * both with `Retry-After`. The caps per caller and per organization are counted where `places`
 * keeps them: in the database, across every process of the service (decision 204); the process's
 * own places (its stream pool) in memory.
 */
export class ExportGate {
  #total = 0;

  constructor(
    private readonly limits: ExportLimits,
    private readonly places: PlaceBook = memoryPlaces(),
  ) {}

  /**
   * Takes a place for `caller`'s export or throws; the function returned gives it back (once),
   * resolving when the place no longer counts (an error answer awaits it: it leaves nothing behind).
   * `inTenant` runs the shared count in the request's transaction.
   */
  async enter(caller: Caller, reply: FastifyReply, inTenant?: InTenant): Promise<() => Promise<void>> {
    const org = caller.organizationId;
    const refuse = (error: AppError, reason: ExportRefusal) => {
      figures.refused[reason]++;
      reply.header('retry-after', String(EXPORT_RETRY_AFTER_SECONDS));
      return error;
    };
    const full = () =>
      refuse(
        new AppError(
          'SERVICE_UNAVAILABLE',
          'Every export place of the service is taken by running exports; try again shortly',
        ),
        'capacity',
      );
    if (this.#total >= this.limits.total) throw full();
    const { mine, ours, release } = await this.places.claim(org, callerKey(caller), this.limits, inTenant);
    if (!release) {
      if (mine >= this.limits.perCaller)
        throw refuse(
          new AppError(
            'TOO_MANY_REQUESTS',
            `You already have ${mine} exports running, the most one ${caller.credential.kind === 'apikey' ? 'API key' : 'user'} may run at once; try again when one has finished`,
          ),
          'caller',
        );
      throw refuse(
        new AppError(
          'TOO_MANY_REQUESTS',
          `Your organization already has ${ours} exports running, the most it may run at once; try again when one has finished`,
        ),
        'organization',
      );
    }
    // Looked at again after the shared count (other requests of this process ran meanwhile).
    if (this.#total >= this.limits.total) {
      await release();
      throw full();
    }
    this.#total++;
    figures.running++;
    runningByOrganization.set(org, (runningByOrganization.get(org) ?? 0) + 1);
    let left = false;
    return async () => {
      if (left) return;
      left = true;
      this.#total--;
      figures.running--;
      const n = (runningByOrganization.get(org) ?? 1) - 1;
      if (n <= 0) runningByOrganization.delete(org);
      else runningByOrganization.set(org, n);
      await release();
    };
  }

  /** Exports running now in this process (tests, metrics). */
  running(): number {
    return this.#total;
  }

  /** Exports this process runs at once at most. */
  capacity(): number {
    return this.limits.total;
  }
}
