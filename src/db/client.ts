import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  type PostgresPool,
  type RawBuilder,
  sql,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { PGlitePool, type PoolStats } from './pglite-pool.ts';
import type { DB } from './schema/index.ts';

export type Engine = 'pglite' | 'postgres';

/**
 * A transaction handle. Services and repositories receive this, never the pool, so a
 * statement cannot run outside the transaction it belongs to (on PGlite that would deadlock).
 */
export type Tx = Transaction<DB>;
/** Runs `fn` in a new transaction of the caller's organization (`http/request-scope.ts`). */
export type TenantRun = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

/** Something statements can run on: a transaction, or (for `unscoped` lookups) the pool. */
export type Queryable = Kysely<DB>;

const INT8_OID = 20;
const POOL_CHECKOUT_TIMEOUT_MS = 10_000;

/** Connections of the request pool and of the stream pool when `Database.open` is not told. */
export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_STREAM_POOL_SIZE = 5;

/** SQLSTATEs of a server that is going away or not accepting connections (yet). */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect|Client was closed/i;

/**
 * Whether an error means the database could not be reached or dropped the connection (rather
 * than refusing a statement): the request may succeed when sent again, so it is a 503.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code) || code.startsWith('08')) return true;
    // Any other SQLSTATE or errno is the database answering.
    if (/^[0-9A-Z]{5}$/.test(code) || code.startsWith('E')) return false;
  }
  return UNAVAILABLE_MESSAGES.test(error.message);
}
const APP_ROLE = 'sdcs_app';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The select list that makes a transaction the tenant's: the organization row-level security
 * compares with, and the application role those policies apply to (local to the transaction).
 * `organizationId` is a column of the statement it goes in, or a literal.
 */
export function tenantSettings(organizationId: string): string {
  return `set_config('app.organization_id', ${organizationId}::text, true), set_config('role', '${APP_ROLE}', true)`;
}

/** A text literal for a statement sent without parameters (see `Database.begin`). */
export function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A transaction opened with its first statement (see `Database.begin`). */
export interface OpenTransaction<R> {
  /** The rows of the opening statement. */
  rows: R[];
  tx: Tx;
  /** Runs the work, then commits; rolls back and rethrows when it throws. Once only. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Rolls back and frees the connection, if `run` was not called. */
  end(): Promise<void>;
}

/**
 * node-postgres answers a multi-statement query (simple protocol) with one result per
 * statement; Kysely reads a single result. This pool hands Kysely the last one.
 */
function lastResultOf(pool: pg.Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      return {
        async query(text: string, values: unknown[]) {
          const result = (await client.query(text, values)) as unknown;
          return Array.isArray(result) ? result.at(-1) : result;
        },
        release: () => client.release(),
      } as never;
    },
    end: () => pool.end(),
  };
}

/** A node-postgres pool of `max` connections to `url`, and its use for metrics. */
function serverPool(url: string, max: number): { pool: pg.Pool; stats: () => PoolStats } {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // A request waits at most this long for a connection, then answers 503.
    connectionTimeoutMillis: POOL_CHECKOUT_TIMEOUT_MS,
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on the next checkout.
  });
  pool.on('connect', (client) => {
    // A client checked out for a request loses its connection (the server restarts): without
    // a listener the 'error' event would end the process. The statement in flight fails on its
    // own (and its request answers 503); on release the pool discards the broken client.
    client.on('error', () => undefined);
  });
  const stats = () => ({
    size: pool.totalCount,
    inUse: pool.totalCount - pool.idleCount,
    waiting: pool.waitingCount,
  });
  return { pool, stats };
}

/** The service's database: PGlite in a directory, or a PostgreSQL server through a pool. */
export class Database {
  #url: string | undefined;

  private constructor(
    readonly engine: Engine,
    private readonly kysely: Kysely<DB>,
    private readonly runScript: (script: string) => Promise<void>,
    private readonly pglite?: PGlite,
    private readonly statsOf: () => PoolStats = () => ({ size: 0, inUse: 0, waiting: 0 }),
    /**
     * Where long reads run (exports): on PostgreSQL a pool of its own, so that a read that lasts
     * as long as its client takes never holds a connection requests need; on PGlite the same
     * one connection (those reads run in short transactions there).
     */
    private readonly streams: Kysely<DB> = kysely,
    private readonly streamStatsOf: () => PoolStats = statsOf,
  ) {}

  /**
   * The PostgreSQL server's URL (undefined on PGlite): a heavy-work worker thread opens its own
   * connection with it to read an export's rows off the request loop (decision 0227).
   */
  get serverUrl(): string | undefined {
    return this.#url;
  }

  /** The connection pool's use (metrics): open, checked out, waiting for a connection. */
  poolStats(): PoolStats {
    return this.statsOf();
  }

  /** The stream pool's use (on PGlite the one connection, as `poolStats`). */
  streamPoolStats(): PoolStats {
    return this.streamStatsOf();
  }

  /**
   * Opens PGlite in `dataDir` (or memory, or from a dump) when no URL is given. On PostgreSQL,
   * `poolSize` connections serve requests and `streamPoolSize` others serve long reads (`stream`).
   */
  static async open(options: {
    databaseUrl?: string;
    dataDir?: string;
    loadDataDir?: Blob;
    poolSize?: number;
    streamPoolSize?: number;
  }): Promise<Database> {
    if (options.databaseUrl) {
      pg.types.setTypeParser(INT8_OID, (v) => Number(v));
      const main = serverPool(options.databaseUrl, options.poolSize ?? DEFAULT_POOL_SIZE);
      const streams = serverPool(options.databaseUrl, options.streamPoolSize ?? DEFAULT_STREAM_POOL_SIZE);
      const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool: lastResultOf(main.pool) }) });
      const database = new Database(
        'postgres',
        kysely,
        async (script) => {
          await main.pool.query(script);
        },
        undefined,
        main.stats,
        new Kysely<DB>({ dialect: new PostgresDialect({ pool: lastResultOf(streams.pool) }) }),
        streams.stats,
      );
      database.#url = options.databaseUrl;
      return database;
    }
    // Loaded only here: a process (or heavy worker, decision 0227) on PostgreSQL never parses PGlite.
    const { PGlite: Embedded } = await import('@electric-sql/pglite');
    const pglite = await Embedded.create({
      dataDir: options.dataDir,
      loadDataDir: options.loadDataDir,
      parsers: { [INT8_OID]: (v: string) => Number(v) },
    });
    const pool = new PGlitePool(pglite);
    const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return new Database(
      'pglite',
      kysely,
      (script) => pool.exec(script),
      pglite,
      () => pool.stats(),
    );
  }

  /**
   * Runs `fn` in a transaction of one organization: row-level security limits every
   * statement to that organization's rows, whatever the query's own filters say.
   */
  tenant<T>(organizationId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.tenantOn(this.kysely, organizationId, fn);
  }

  /**
   * `tenant`, on the stream pool: for reads that last as long as their client takes to receive
   * them (exports). On PGlite it is `tenant` (the one connection).
   */
  stream<T>(organizationId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.tenantOn(this.streams, organizationId, fn);
  }

  private async tenantOn<T>(on: Kysely<DB>, organizationId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
    if (!UUID.test(organizationId)) throw new Error('tenant: not an organization id');
    const open = await this.beginOn(
      on,
      CompiledQuery.raw(`select ${tenantSettings(literal(organizationId))}`),
    );
    return open.run(() => fn(open.tx));
  }

  /**
   * Opens a transaction whose first statement is sent with BEGIN, in one round trip (the simple
   * query protocol, so `opening` carries no parameters: its values are literals). `run` then runs
   * the work in it and commits (or rolls back when the work throws); `end` rolls back unused.
   * The connection stays checked out until one of them is called.
   */
  begin<R>(opening: CompiledQuery<R>): Promise<OpenTransaction<R>> {
    return this.beginOn(this.kysely, opening);
  }

  private beginOn<R>(on: Kysely<DB>, opening: CompiledQuery<R>): Promise<OpenTransaction<R>> {
    return new Promise((resolve, reject) => {
      let finish!: (commit: boolean) => void;
      const finished = new Promise<boolean>((r) => {
        finish = r;
      });
      let opened = false;
      const held = on.connection().execute(async (db) => {
        let rows: R[];
        try {
          rows = (await db.executeQuery(CompiledQuery.raw(`begin; ${opening.sql}`))).rows as R[];
        } catch (error) {
          await db.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
          throw error;
        }
        opened = true;
        let state: 'open' | 'running' | 'done' = 'open';
        const end = async (commit: boolean) => {
          finish(commit);
          await held;
        };
        resolve({
          rows,
          // Kysely's transaction type only forbids nesting another transaction in it.
          tx: db as unknown as Tx,
          async run<T>(fn: () => Promise<T>): Promise<T> {
            if (state !== 'open') throw new Error('transaction already used');
            state = 'running';
            let result: T;
            try {
              result = await fn();
            } catch (error) {
              state = 'done';
              await end(false).catch(() => undefined);
              throw error;
            }
            state = 'done';
            await end(true);
            return result;
          },
          async end() {
            if (state !== 'open') return;
            state = 'done';
            await end(false).catch(() => undefined);
          },
        });
        const commit = await finished;
        await db.executeQuery(CompiledQuery.raw(commit ? 'commit' : 'rollback'));
      });
      held.catch((error) => {
        if (!opened) reject(error);
      });
    });
  }

  /**
   * Runs `fn` in a transaction outside any tenant: for authentication, sign-up and
   * start-up tasks that must find rows before an organization is known.
   */
  system<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.kysely.transaction().execute(fn);
  }

  /**
   * Runs single statements outside any transaction and tenant, each on its own checkout of a
   * connection: for the one lookup every request makes (its credential), where BEGIN and
   * COMMIT around one SELECT would triple the round trips. Never call it from inside `tenant`
   * or `system` (on PGlite that waits forever for the connection the transaction holds).
   */
  unscoped<T>(fn: (db: Kysely<DB>) => Promise<T>): Promise<T> {
    return fn(this.kysely);
  }

  /** Asks the database for a trivial answer: it is reachable and answering. */
  async ping(): Promise<void> {
    await sql`select 1`.execute(this.kysely);
  }

  /** Runs a multi-statement SQL script (migrations). */
  execScript(script: string): Promise<void> {
    return this.runScript(script);
  }

  /** A dump of the embedded database (tests load it as a migrated template). */
  async dumpDataDir(compression: 'none' | 'gzip' = 'none'): Promise<Blob> {
    if (!this.pglite) throw new Error('only the embedded database can be dumped');
    return this.pglite.dumpDataDir(compression);
  }

  async close(): Promise<void> {
    if (this.streams !== this.kysely) await this.streams.destroy();
    await this.kysely.destroy();
  }
}

/** A jsonb parameter, serialized the same way on both drivers. */
export function json(value: unknown): RawBuilder<unknown> {
  return sql`${JSON.stringify(value)}::jsonb`;
}
