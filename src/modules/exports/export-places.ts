/**
 * Where the export caps per caller and per organization are counted (decision 204): in the
 * database, shared by every service process (`databasePlaces`), or in this process only
 * (`memoryPlaces`, for a gate without a database: unit tests).
 */
import type { Database, Tx } from '../../db/client.ts';
import { claimExportPlace, releaseExportPlaces, renewExportPlaces } from './export-places.repository.ts';

export interface PlaceLimits {
  perCaller: number;
  perOrganization: number;
}

/** The counts seen, and the place taken (its release) when both were below their caps. */
export interface Claim {
  mine: number;
  ours: number;
  /** Gives the place back; resolves once the place no longer counts anywhere. */
  release?: () => Promise<void>;
}

/** Runs `fn` in a transaction of the caller's organization (the request's own, when it has one). */
export type InTenant = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

export interface PlaceBook {
  claim(organizationId: string, caller: string, limits: PlaceLimits, inTenant?: InTenant): Promise<Claim>;
}

/** How long a place lives without being renewed (a process that dies frees its places after it). */
export const PLACE_LEASE_SECONDS = 60;
/** How often a process renews the leases of its running exports. */
const RENEW_EVERY_MS = (PLACE_LEASE_SECONDS / 3) * 1000;

/** Counts in this process only. */
export function memoryPlaces(): PlaceBook {
  const callers = new Map<string, number>();
  const organizations = new Map<string, number>();
  const add = (counts: Map<string, number>, key: string, by: number) => {
    const n = (counts.get(key) ?? 0) + by;
    if (n <= 0) counts.delete(key);
    else counts.set(key, n);
  };
  return {
    async claim(organizationId, caller, limits) {
      const who = `${organizationId}|${caller}`;
      const mine = callers.get(who) ?? 0;
      const ours = organizations.get(organizationId) ?? 0;
      if (mine >= limits.perCaller || ours >= limits.perOrganization) return { mine, ours };
      add(callers, who, 1);
      add(organizations, organizationId, 1);
      let released = false;
      return {
        mine,
        ours,
        release: async () => {
          if (released) return;
          released = true;
          add(callers, who, -1);
          add(organizations, organizationId, -1);
        },
      };
    },
  };
}

/**
 * Counts rows of `export_places`: a place is claimed in one transaction of its organization (under
 * the organization's advisory lock), its lease renewed every 20 s while the export runs, and it is
 * deleted when the export ends. Until that delete has committed, this process leaves the place out
 * of its own counts, so a caller whose export just ended can start the next at once.
 */
export function databasePlaces(database: Database): PlaceBook {
  const live = new Set<string>();
  /** Places given back whose delete has not committed yet. */
  const releasing = new Set<string>();
  let renewing: NodeJS.Timeout | undefined;
  const renew = () => {
    if (live.size === 0) {
      clearInterval(renewing);
      renewing = undefined;
      return;
    }
    const ids = [...live];
    database.system((tx) => renewExportPlaces(tx, ids, PLACE_LEASE_SECONDS)).catch(() => undefined);
  };
  const release = (id: string): Promise<void> => {
    live.delete(id);
    releasing.add(id);
    return database
      .system((tx) => releaseExportPlaces(tx, [id]))
      .then(
        () => {
          releasing.delete(id);
        },
        // Not deleted (the database is away): the lease runs out; until then this process skips it.
        () => {
          setTimeout(() => releasing.delete(id), PLACE_LEASE_SECONDS * 1000).unref();
        },
      );
  };
  return {
    async claim(organizationId, caller, limits, inTenant) {
      // A read's request holds a transaction opened with its credential: the claim uses it (on
      // PGlite a second one would wait for the one connection forever).
      const run: InTenant = inTenant ?? ((fn) => database.tenant(organizationId, fn));
      const claim = await run((tx) =>
        claimExportPlace(tx, organizationId, caller, { ...limits, leaseSeconds: PLACE_LEASE_SECONDS }, [
          ...releasing,
        ]),
      );
      const id = claim.id;
      if (!id) return { mine: claim.mine, ours: claim.ours };
      live.add(id);
      renewing ??= setInterval(renew, RENEW_EVERY_MS).unref();
      let released = false;
      return {
        mine: claim.mine,
        ours: claim.ours,
        release: async () => {
          if (released) return;
          released = true;
          await release(id);
        },
      };
    },
  };
}
