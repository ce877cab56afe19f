// Issue 41, item 1: the request pool's and the stream pool's sizes are settings, and each pool
// opens no more connections than its setting (PostgreSQL; PGlite has one connection).
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openConfiguredDatabase } from '../../src/server.ts';
import { testConfig, useTestApp } from '../helpers/app.ts';
import { createTenant } from '../helpers/factories.ts';
import { until } from './stalled-clients.ts';

const env = { SDCS_DATA_DIR: `/tmp/sdcs-test-${process.pid}`, SDCS_SECRET: 'x'.repeat(32) };

describe('pool and export settings', () => {
  it('have documented defaults and refuse values out of range', () => {
    const config = loadConfig(env);
    expect(config.dbPoolSize).toBe(10);
    expect(config.dbStreamPoolSize).toBe(5);
    expect(config.sendTimeoutMs).toBe(30_000);
    expect(config.exportsPerCaller).toBe(2);
    expect(config.exportsPerOrganization).toBe(4);
    const set = loadConfig({
      ...env,
      SDCS_DB_POOL_SIZE: '20',
      SDCS_DB_STREAM_POOL_SIZE: '3',
      SDCS_SEND_TIMEOUT_SECONDS: '5',
      SDCS_EXPORTS_PER_CALLER: '1',
      SDCS_EXPORTS_PER_ORGANIZATION: '2',
    });
    expect([set.dbPoolSize, set.dbStreamPoolSize, set.sendTimeoutMs, set.exportsPerCaller]).toEqual([
      20, 3, 5_000, 1,
    ]);
    expect(set.exportsPerOrganization).toBe(2);
    expect(() => loadConfig({ ...env, SDCS_DB_POOL_SIZE: '1' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...env, SDCS_DB_STREAM_POOL_SIZE: '0' })).toThrow(
      'SDCS_DB_STREAM_POOL_SIZE must be an integer between 1 and 1000, got "0"',
    );
    expect(() => loadConfig({ ...env, SDCS_SEND_TIMEOUT_SECONDS: 'soon' })).toThrow(ConfigError);
  });
});

const t = useTestApp();

describe.skipIf(!process.env['DATABASE_URL'])('the pools (PostgreSQL)', () => {
  it('open at most SDCS_DB_POOL_SIZE and SDCS_DB_STREAM_POOL_SIZE connections', async () => {
    const database = await openConfiguredDatabase(
      testConfig({ databaseUrl: t.url!, dbPoolSize: 3, dbStreamPoolSize: 2 }),
    );
    try {
      const org = (await createTenant(t)).organizationId;
      const requests = Array.from({ length: 6 }, () =>
        database.unscoped((db) => sql`select pg_sleep(1)`.execute(db)),
      );
      const streams = Array.from({ length: 6 }, () =>
        database.stream(org, (tx) => sql`select pg_sleep(1)`.execute(tx)),
      );
      // Six statements of a second each on both pools: three (two) run, the others wait.
      await until(() => database.poolStats().inUse === 3 && database.streamPoolStats().inUse === 2, 3_000);
      expect(database.poolStats()).toMatchObject({ size: 3, inUse: 3, waiting: 3 });
      expect(database.streamPoolStats()).toMatchObject({ size: 2, inUse: 2, waiting: 4 });
      await Promise.all([...requests, ...streams]);
    } finally {
      await database.close();
    }
  });
});
