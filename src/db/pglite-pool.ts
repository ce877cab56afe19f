import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/** Connections open, checked out, and requests waiting for one. */
export interface PoolStats {
  size: number;
  inUse: number;
  waiting: number;
}

/**
 * A node-postgres style pool over PGlite's single connection. `connect()` waits until the
 * previous client is released, so the statements of two transactions can never interleave
 * on the one connection (Kysely holds a client for a whole transaction).
 */
export class PGlitePool implements PostgresPool {
  #tail: Promise<void> = Promise.resolve();
  #waiting = 0;
  #inUse = 0;

  constructor(private readonly pglite: PGlite) {}

  async connect(): Promise<PostgresPoolClient> {
    let release!: () => void;
    const turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.#tail;
    this.#tail = previous.then(() => turn);
    this.#waiting++;
    await previous;
    this.#waiting--;
    this.#inUse = 1;
    let released = false;
    const pool = this;
    const pglite = this.pglite;
    const client = {
      async query<R>(sqlText: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
        // Like node-postgres, a statement without parameters goes through the simple
        // protocol, so a script of several statements runs as one call.
        const result =
          parameters.length === 0
            ? ((await pglite.exec(sqlText)).at(-1) ?? { rows: [], affectedRows: 0 })
            : await pglite.query<R>(sqlText, parameters as unknown[]);
        const command = /^\s*(\w+)/.exec(sqlText)?.[1]?.toUpperCase() ?? 'SELECT';
        return {
          command: command as PostgresQueryResult<R>['command'],
          rowCount: result.affectedRows ?? result.rows.length,
          rows: result.rows as R[],
        };
      },
      release() {
        if (released) return;
        released = true;
        pool.#inUse = 0;
        release();
      },
    };
    return client as PostgresPoolClient;
  }

  /** The one connection's use, for metrics. */
  stats(): PoolStats {
    return { size: 1, inUse: this.#inUse, waiting: this.#waiting };
  }

  /** Runs a script of several statements (migrations) while holding the connection. */
  async exec(script: string): Promise<void> {
    const client = await this.connect();
    try {
      await this.pglite.exec(script);
    } finally {
      client.release();
    }
  }

  async end(): Promise<void> {
    const client = await this.connect();
    try {
      await this.pglite.close();
    } finally {
      client.release();
    }
  }
}
