import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/**
 * A node-postgres style pool over PGlite's single connection. `connect()` waits until the
 * previous client is released, so the statements of two transactions can never interleave
 * on the one connection (Kysely holds a client for a whole transaction).
 */
export class PGlitePool implements PostgresPool {
  #tail: Promise<void> = Promise.resolve();

  constructor(private readonly pglite: PGlite) {}

  async connect(): Promise<PostgresPoolClient> {
    let release!: () => void;
    const turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.#tail;
    this.#tail = previous.then(() => turn);
    await previous;
    let released = false;
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
        release();
      },
    };
    return client as PostgresPoolClient;
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
