import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { Database } from '../src/db/client.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { useTestApp } from './helpers/app.ts';

// `sdcs verify-aggregates` as an operator runs it: a clean database checks out, a corrupted total is
// reported (exit status 1) and `--repair` rebuilds it. On the embedded database (a data directory of
// its own) or, with DATABASE_URL, on this test file's PostgreSQL database.
const BIN = join(import.meta.dirname, '..', 'bin', 'sdcs.js');
const t = useTestApp();

function sdcs(env: NodeJS.ProcessEnv, args: string[]) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const all: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...env };
    if (!env['DATABASE_URL']) delete all['DATABASE_URL'];
    const child = spawn(process.execPath, [BIN, ...args], { env: all });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/** A database the CLI can open (the embedded one is closed before it runs), and its environment. */
async function target(): Promise<{ env: NodeJS.ProcessEnv; open: () => Promise<Database> }> {
  if (t.url) return { env: { DATABASE_URL: t.url }, open: () => Database.open({ databaseUrl: t.url! }) };
  const dataDir = mkdtempSync(join(tmpdir(), 'sdcs-verify-'));
  const dir = join(dataDir, 'pglite');
  return {
    env: { SDCS_DATA_DIR: dataDir },
    open: () =>
      Database.open({
        dataDir: dir,
        ...(existsSync(dir) ? {} : { loadDataDir: new Blob([readFileSync(inject('pgliteTemplate'))]) }),
      }),
  };
}

describe('sdcs verify-aggregates', () => {
  it('reports a total that differs from the values, and --repair rebuilds it', async () => {
    const { env, open } = await target();
    const database = await open();
    let orgId: string;
    try {
      const created = await createOrganizationWithKey(database, {
        organizationName: 'Verify',
        email: 'verify@example.com',
        name: 'Verify',
        password: null,
      });
      orgId = created!.organization.id;
      // A total of 5 (one value) for a site and element that have no values at all.
      await database.system((tx) =>
        sql`insert into value_totals (organization_id, site_id, element_id, year, status, period_unit, total, value_count)
            values (${orgId}, gen_random_uuid(), gen_random_uuid(), 2025, 'COMPLETED', 1, 5, 1)`.execute(tx),
      );
      // And a LAST/AVERAGE statistics row of a site with no values (one site, one value of 7).
      await database.system((tx) =>
        sql`insert into value_subtree_stats (organization_id, site_id, element_id, year, period_unit, site_count, value_count, total, mean_sum, last_sum)
            values (${orgId}, gen_random_uuid(), gen_random_uuid(), 2025, 0, 1, 1, 7, 7, 7)`.execute(tx),
      );
      // And a kept completeness count: one complete period of a form-site that does not exist.
      await database.system((tx) =>
        sql`insert into completeness_subtree (organization_id, site_id, form_id, year, period_unit, complete)
            values (${orgId}, gen_random_uuid(), gen_random_uuid(), 2025, 3, 1)`.execute(tx),
      );
    } finally {
      await database.close();
    }
    const found = await sdcs(env, ['verify-aggregates', '--org', orgId]);
    expect(found.code, found.err).toBe(1);
    expect(found.out).toMatch(/2025 COMPLETED period 1: stored 5 \(1 values\), computed 0 \(0 values\)/);
    expect(found.out).toMatch(/subtree statistics site .* 2025 period 0: stored 1 1 7 7 7, computed none/);
    expect(found.out).toMatch(/completeness subtree .* 2025 3: stored 0 1 0 0 0, computed none/);
    expect(found.out).toMatch(/Checked 1 organization\(s\): 3 difference\(s\)/);
    const repaired = await sdcs(env, ['verify-aggregates', '--org', orgId, '--repair']);
    expect(repaired.code, repaired.err).toBe(0);
    expect(repaired.out).toMatch(/rebuilt 1 organization\(s\)/);
    const clean = await sdcs(env, ['verify-aggregates', '--org', orgId]);
    expect(clean.code, clean.err).toBe(0);
    expect(clean.out).toMatch(/Checked 1 organization\(s\): 0 difference\(s\)/);
  }, 120_000);
});
