import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A PostgreSQL restart under load, on a private cluster (its own directory and port; the shared
// server is never touched): the service stays up, answers 503 while the database is away, comes
// back by itself, and keeps every write it acknowledged. Runs in the PostgreSQL run of the suite.
const PG_BIN = '/usr/lib/postgresql/15/bin';
const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'sdcs.js');
const enabled = Boolean(process.env['DATABASE_URL']) && existsSync(join(PG_BIN, 'initdb'));
const asRoot = process.getuid?.() === 0;

const clusterDir = enabled ? mkdtempSync(join(tmpdir(), 'sdcs-outage-pg-')) : '';
const dataDir = enabled ? mkdtempSync(join(tmpdir(), 'sdcs-outage-data-')) : '';
let pgPort = 0;
let service: ChildProcess | undefined;
let base = '';
let key = '';
let serviceOutput = '';

/** Runs a PostgreSQL binary as the postgres user (the server refuses to run as root). */
function pgRun(binary: string, args: string[]): string {
  const [cmd, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, binary), ...args]]
    : [join(PG_BIN, binary), args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const pgData = () => join(clusterDir, 'data');
const startCluster = () =>
  pgRun('pg_ctl', [
    '-D',
    pgData(),
    '-l',
    join(clusterDir, 'log'),
    '-w',
    '-o',
    `-p ${pgPort} -k ${clusterDir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    'start',
  ]);
const stopCluster = () => pgRun('pg_ctl', ['-D', pgData(), '-m', 'fast', '-w', 'stop']);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

function env(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
    SDCS_DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    // The load loop is faster than any person: the per-credential limit would answer 429.
    SDCS_RATE_LIMIT_PER_MINUTE: '0',
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  if (!enabled) return;
  if (asRoot) execFileSync('chown', ['postgres:postgres', clusterDir]);
  pgPort = await freePort();
  pgRun('initdb', ['-D', pgData(), '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  startCluster();
  const init = execFileSync(
    process.execPath,
    [BIN, 'init', '--org', 'Outage Co', '--email', 'ops@example.com'],
    {
      env: env(),
      encoding: 'utf8',
    },
  );
  key = /API key \(shown only now\): (sdcs_\w+)/.exec(init)?.[1] ?? '';
  service = spawn(process.execPath, [BIN, 'serve'], { env: { ...env(), LOG_LEVEL: 'info' } });
  base = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      serviceOutput += d;
      const m = /SDCS listening on (http:\/\/[^\s"]+) /.exec(serviceOutput);
      if (m?.[1]) resolve(m[1]);
    };
    service?.stdout?.on('data', onData);
    service?.stderr?.on('data', onData);
    service?.once('exit', (code) => reject(new Error(`exited with ${code}: ${serviceOutput}`)));
  });
}, 120_000);

afterAll(async () => {
  if (!enabled) return;
  if (service && service.exitCode === null) {
    const exited = new Promise((r) => service?.once('exit', r));
    service.kill('SIGTERM');
    await exited;
  }
  try {
    stopCluster();
  } catch {
    // already stopped
  }
  rmSync(clusterDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(!enabled)('a PostgreSQL restart under load', () => {
  it('keeps the process up, answers 503 meanwhile, recovers within 5 s and keeps acknowledged writes', async () => {
    expect(key).toMatch(/^sdcs_/);
    const acknowledged: string[] = [];
    const failures: { status: number; retryAfter: string | null; body: any }[] = [];
    let running = true;
    let sequence = 0;

    const record = (res: { status: number; headers: Headers; body: any }) => {
      if (res.status >= 400)
        failures.push({ status: res.status, retryAfter: res.headers.get('retry-after'), body: res.body });
    };
    const writer = async (w: number) => {
      while (running) {
        try {
          const res = await call('POST', '/sites', { name: `w${w}-${sequence++}` });
          if (res.status === 200) acknowledged.push(res.body.id);
          else record(res);
        } catch {
          // a connection the service closed: not acknowledged
        }
        await sleep(20);
      }
    };
    const reader = async () => {
      while (running) {
        try {
          const res = await call('GET', '/me');
          if (res.status !== 200) record(res);
        } catch {
          // as above
        }
        await sleep(20);
      }
    };
    const load = [0, 1, 2, 3].map(writer).concat([reader(), reader()]);

    await sleep(2_000);
    const beforeOutage = acknowledged.length;
    expect(beforeOutage, JSON.stringify(failures.slice(0, 3))).toBeGreaterThan(0);
    stopCluster();
    await sleep(5_000);
    const readyDuringOutage = await call('GET', '/health/ready');
    await sleep(5_000);
    const duringOutage = failures.length;
    startCluster();
    const restarted = Date.now();
    let healthy = false;
    while (Date.now() - restarted < 5_000) {
      const res = await call('GET', '/health').catch(() => undefined);
      if (res?.status === 200) {
        healthy = true;
        break;
      }
      await sleep(100);
    }
    const recoveredInMs = Date.now() - restarted;
    const readyAfter = await call('GET', '/health/ready');
    const acknowledgedAtRecovery = acknowledged.length;
    await sleep(2_000);
    running = false;
    await Promise.all(load);

    console.info(
      `outage: ${acknowledged.length} writes acknowledged, ${failures.length} answers 503, 200 again ${recoveredInMs} ms after the restart`,
    );
    expect(service?.exitCode, serviceOutput.slice(-2000)).toBeNull();
    expect(healthy, `not healthy ${recoveredInMs} ms after the restart`).toBe(true);
    expect(readyDuringOutage.status).toBe(503);
    expect(readyDuringOutage.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(readyDuringOutage.body.issues).toContainEqual({ path: 'database', message: expect.any(String) });
    expect(readyAfter.status).toBe(200);
    // Writes go on after the recovery.
    expect(acknowledged.length).toBeGreaterThan(acknowledgedAtRecovery);
    // While the database was away: 503 with Retry-After and the error body, nothing else.
    expect(duringOutage).toBeGreaterThan(0);
    for (const f of failures) {
      expect(f.status, JSON.stringify(f.body)).toBe(503);
      expect(f.retryAfter).toMatch(/^\d+$/);
      expect(f.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
    }
    // Every acknowledged write is there.
    const missing: string[] = [];
    for (const id of acknowledged) {
      const res = await call('GET', `/sites/${id}`);
      if (res.status !== 200) missing.push(`${id}: ${res.status}`);
    }
    expect(missing).toEqual([]);
  }, 120_000);
});
