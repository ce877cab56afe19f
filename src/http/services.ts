import type { Config } from '../config.ts';
import type { Database, Tx } from '../db/client.ts';
import type { Clock } from '../domain/clock.ts';
import type { StreamLane } from '../lib/heavy/lane.ts';
import type { HeavyWork } from '../lib/heavy/pool.ts';
import type { Sealer } from '../lib/secrets.ts';
import type { Mailer } from '../mail/message.ts';
import type { Storage } from '../storage/storage.ts';

/**
 * The one set of services every route plugin is given (decision 231): built once by the
 * composition root (`app.ts`) and registered with each plugin as its options, so that a plugin
 * takes what it needs from one typed object instead of an option shape of its own.
 *
 * A module whose service depends on its own types adds it here by declaration merging, next to
 * those types (the values module adds `pipeline`: `declare module '../../http/services.ts'`), so
 * that this file stays below every module in the import graph.
 */
export interface Services {
  database: Database;
  config: Config;
  /** The service's clock: every "now" of a request comes from it. */
  clock: Clock;
  mailer: Mailer;
  /** Uploaded files (media, import files, signed packs). */
  storage: Storage;
  /** The heavy-work pool: CPU-heavy work off the request loop, a fair share per organization. */
  heavy: HeavyWork;
  /** The export lane: CSV and NDJSON exports read and encoded in one worker thread, many at once. */
  exportLane: StreamLane;
  /** Seals webhook secrets at rest (AES-256-GCM under a key derived from SDCS_SECRET). */
  webhookSealer: Sealer;
  /**
   * Accepts a person's live invitation to an organization (the invitations module's operation),
   * for single sign-on's first sign-in of an invited address: auth sits below invitations in the
   * import graph, so it is handed over here rather than imported.
   */
  acceptInvitation: (tx: Tx, organizationId: string, userId: string) => Promise<boolean>;
}
