import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The real process: the service started as `npm start` does (the bundle in dist/), stopped with
// SIGTERM, restarted; the `sdcs` command (bin/, through tsx) for init and migrate.
const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'sdcs.js');
const BUNDLE = join(ROOT, 'dist', 'sdcs.mjs');
const dataDir = mkdtempSync(join(tmpdir(), 'sdcs-serve-'));
let databaseUrl: string | undefined;
let admin: pg.Client | undefined;
let dbName = '';

function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, SDCS_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' };
  delete e['DATABASE_URL'];
  if (databaseUrl) e['DATABASE_URL'] = databaseUrl;
  return e;
}

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: env() });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/** Starts `sdcs serve` and resolves once it prints where it listens. */
function start(
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; base: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUNDLE, 'serve'], {
      env: { ...env(), LOG_LEVEL: 'info', ...extraEnv },
    });
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const m = /SDCS listening on (http:\/\/[^\s]+) /.exec(out);
      if (m?.[1]) resolve({ child, base: m[1], output: () => out });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

beforeAll(async () => {
  const url = process.env['DATABASE_URL'];
  if (!url) return;
  dbName = `sdcs_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const target = new URL(url);
  target.pathname = `/${dbName}`;
  databaseUrl = target.toString();
});

afterAll(async () => {
  if (admin) {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
});

describe('sdcs serve', () => {
  it('starts on an empty database, prints a working first call, stops on SIGTERM, keeps data', async () => {
    const first = await start();
    const key = /Bearer (sdcs_\w+)/.exec(first.output())?.[1];
    expect(key).toBeDefined();
    const me = await fetch(`${first.base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    expect((await me.json()).role).toBe('OWNER');
    // The calculation sandbox (a worker thread of the bundle) answers too.
    const define = (calcCode: string) =>
      fetch(`${first.base}/api/v1/activity-definitions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Def ${calcCode.length}`, uiCode: '', calcCode, inputs: [] }),
      });
    expect((await define('return 1')).status).toBe(200);
    expect((await define('return (')).status).toBe(400);
    expect(await stop(first.child)).toBe(0);

    const second = await start();
    try {
      expect(second.output()).not.toContain('created a first organization');
      const again = await fetch(`${second.base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(again.status).toBe(200);
      if (!databaseUrl) {
        // The embedded database belongs to one process at a time.
        const blocked = await run(['migrate']);
        expect(blocked.code).toBe(1);
        expect(blocked.err).toMatch(/in use by process/);
      }
    } finally {
      expect(await stop(second.child)).toBe(0);
    }
  }, 60_000);

  it('sdcs init creates another organization and prints its API key', async () => {
    const res = await run(['init', '--org', 'Second Org', '--email', 'second@example.com']);
    expect(res.code).toBe(0);
    const key = /API key \(shown only now\): (sdcs_\w+)/.exec(res.out)?.[1];
    expect(key).toBeDefined();
    // Without --password the new owner gets one, printed once, that works for signing in.
    const password = /Owner login \(password shown only now\): second@example\.com \/ (\w+)/.exec(
      res.out,
    )?.[1];
    expect(password).toBeDefined();
    const server = await start({ LOG_FORMAT: 'pretty' });
    try {
      const me = await fetch(`${server.base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      expect((await me.json()).organization.name).toBe('Second Org');
      const login = await fetch(`${server.base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'second@example.com', password }),
      });
      expect(login.status).toBe(200);
      // Readable log lines when asked (and on a terminal); JSON lines otherwise.
      const line = server
        .output()
        .split('\n')
        .find((l) => l.includes('SDCS listening on'))!;
      expect(line).toMatch(/INFO/);
      // The start-up line says where the web app is.
      expect(line).toContain(`web app ${server.base}/app`);
      expect(line.trim().startsWith('{')).toBe(false);
    } finally {
      await stop(server.child);
    }
  }, 60_000);

  it('reports bad configuration in one line, without a stack trace', async () => {
    const res = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...env(), PORT: 'eighty' } });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      child.on('exit', (code) => resolve({ code, err }));
    });
    expect(res.code).toBe(1);
    expect(res.err.trim().split('\n')).toHaveLength(1);
    expect(res.err).toContain('PORT');
  });
});

describe('sdcs serve on the embedded database (issue 48)', () => {
  it('says on stderr that the database is opening, then how long it took, before it listens', async () => {
    const e: NodeJS.ProcessEnv = {
      ...env(),
      SDCS_DATA_DIR: mkdtempSync(join(tmpdir(), 'sdcs-opening-')),
      LOG_LEVEL: 'info',
    };
    delete e['DATABASE_URL'];
    const child = spawn(process.execPath, [BUNDLE, 'serve'], { env: e });
    let err = '';
    let all = '';
    try {
      await new Promise<void>((resolve, reject) => {
        const onData = (d: Buffer) => {
          all += d;
          if (/SDCS listening on/.test(all)) resolve();
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', (d: Buffer) => {
          err += d;
          onData(d);
        });
        child.on('exit', (code) => reject(new Error(`exited with ${code}: ${all}`)));
      });
      expect(err).toContain(`Opening the embedded database in ${e['SDCS_DATA_DIR']}/pglite…`);
      expect(err).toMatch(/Embedded database opened in \d+\.\d s/);
      // Opening comes before listening.
      expect(all.indexOf('Embedded database opened')).toBeLessThan(all.indexOf('SDCS listening on'));
    } finally {
      expect(await stop(child)).toBe(0);
    }
  }, 60_000);
});

describe('sdcs serve with SDCS_TRUST_PROXY=true (issue 25, item 9)', () => {
  it('warns at start-up that the client-written X-Forwarded-For is trusted, and names the remedy', async () => {
    const served = await start({ SDCS_TRUST_PROXY: 'true' });
    try {
      // The warning follows the "listening" line: wait for it rather than for a time.
      for (let i = 0; i < 100 && !served.output().includes('SDCS_TRUST_PROXY=true'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(served.output()).toMatch(/SDCS_TRUST_PROXY=true trusts the leftmost X-Forwarded-For/);
      expect(served.output()).toContain('SDCS_TRUST_PROXY=1');
    } finally {
      expect(await stop(served.child)).toBe(0);
    }
  }, 60_000);
});
