import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { Database } from '../src/db/client.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';

// `sdcs backup` / `sdcs restore` of the embedded database, as a user runs them.
const BIN = join(import.meta.dirname, '..', 'bin', 'sdcs.js');

function sdcs(dataDir: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, SDCS_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extraEnv };
    if (!extraEnv['DATABASE_URL']) delete env['DATABASE_URL'];
    const child = spawn(process.execPath, [BIN, ...args], { env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/** Adds an organization in-process (faster than `sdcs init`, which the server test covers). */
async function addOrganization(dataDir: string, name: string): Promise<void> {
  const dir = join(dataDir, 'pglite');
  // The first time from the run's migrated template (no initdb, no migrations to apply).
  const template = existsSync(dir) ? undefined : new Blob([readFileSync(inject('pgliteTemplate'))]);
  const database = await Database.open({ dataDir: dir, loadDataDir: template });
  try {
    await createOrganizationWithKey(database, {
      organizationName: name,
      email: `${name}@example.com`,
      name,
      password: null,
    });
  } finally {
    await database.close();
  }
}

async function organizations(dataDir: string): Promise<string[]> {
  const database = await Database.open({ dataDir: join(dataDir, 'pglite') });
  try {
    return await database.system(async (tx) =>
      (await sql<{ name: string }>`select name from organizations order by name`.execute(tx)).rows.map(
        (r) => r.name,
      ),
    );
  } finally {
    await database.close();
  }
}

describe.skipIf(Boolean(process.env['DATABASE_URL']))('backup and restore of the embedded database', () => {
  it('restores exactly what was backed up, keeping the replaced database aside', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sdcs-backup-'));
    const file = join(dataDir, 'backup.tar.gz');
    await addOrganization(dataDir, 'Before');
    const backup = await sdcs(dataDir, ['backup', file]);
    expect(backup.err).toBe('');
    expect(backup.out).toMatch(/Backed up .* \(\d+ bytes\)/);
    await addOrganization(dataDir, 'After');
    expect(await organizations(dataDir)).toEqual(['After', 'Before']);

    const restore = await sdcs(dataDir, ['restore', file]);
    expect(restore.err).toBe('');
    expect(restore.out).toMatch(/previous database is kept in/);
    expect(await organizations(dataDir)).toEqual(['Before']);
    expect(readdirSync(dataDir).some((f) => f.startsWith('pglite.replaced-'))).toBe(true);
  }, 120_000);

  it('refuses while a server holds the database, and refuses a file that is no backup', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sdcs-backup-'));
    // This test's own process stands for a running server.
    writeFileSync(join(dataDir, 'sdcs.pid'), String(process.pid));
    const busy = await sdcs(dataDir, ['backup', join(dataDir, 'x.tar.gz')]);
    expect(busy.code).toBe(1);
    expect(busy.err).toMatch(/in use by process \d+; stop the server before a backup/);

    const other = mkdtempSync(join(tmpdir(), 'sdcs-backup-'));
    const junk = join(other, 'junk.tar.gz');
    writeFileSync(junk, 'not a backup');
    const bad = await sdcs(other, ['restore', junk]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/is not a backup of the embedded database/);
    expect(readdirSync(other)).not.toContain('pglite');
  }, 60_000);

  it('points to pg_dump on a PostgreSQL server', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sdcs-backup-'));
    const res = await sdcs(dataDir, ['backup', 'x.dump'], { DATABASE_URL: 'postgres://u@127.0.0.1:1/db' });
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/pg_dump/);
  });
});
