import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.ts';

// Issue 49: `kill -9` of the service between an event and its delivery still delivers it once
// after a restart (the event is a job row committed with the write); on PostgreSQL, two processes
// deliver each event once.
const ROOT = join(import.meta.dirname, '..');
const BUNDLE = join(ROOT, 'dist', 'sdcs.mjs');
const dataDir = mkdtempSync(join(tmpdir(), 'sdcs-webhooks-crash-'));
let databaseUrl: string | undefined;
let admin: pg.Client | undefined;
let dbName = '';
let receiver: Receiver;
const children: ChildProcess[] = [];

function start(
  pollMs: number,
  dir = dataDir,
): Promise<{ child: ChildProcess; base: string; output: () => string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SDCS_DATA_DIR: dir,
    PORT: '0',
    LOG_LEVEL: 'info',
    SDCS_WEBHOOKS_ALLOW_PRIVATE: 'true',
    SDCS_JOBS_POLL_MS: String(pollMs),
    SDCS_SECRET: 'webhooks-crash-test-secret-0123456789',
  };
  delete env['DATABASE_URL'];
  if (databaseUrl) env['DATABASE_URL'] = databaseUrl;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUNDLE, 'serve'], { env });
    children.push(child);
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

async function kill(child: ChildProcess) {
  child.removeAllListeners('exit');
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/** Waits until the receiver holds `count` requests at `path` (or 30 s pass). */
async function until(path: string, count: number) {
  for (let i = 0; i < 300 && receiver.at(path).length < count; i++)
    await new Promise((r) => setTimeout(r, 100));
}

beforeAll(async () => {
  receiver = await startReceiver();
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
  for (const child of children) await kill(child);
  await receiver.close();
  if (admin) {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
});

it('kill -9 after the event and before its delivery: delivered once after the restart', async () => {
  // A worker that would not look for jobs for ten minutes: the delivery waits in the table.
  const first = await start(600_000);
  const key = /Bearer (sdcs_\w+)/.exec(first.output())![1]!;
  const call = async (base: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: await res.json() };
  };
  const b = first.base;
  const hook = await call(b, 'POST', '/webhooks', {
    url: receiver.url('/crash'),
    events: ['value.submitted'],
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(200);
  receiver.secret('/crash', hook.body.secret);
  const site = (await call(b, 'POST', '/sites', { name: 'A', code: 'A' })).body.id;
  const form = await call(b, 'POST', '/forms', {
    name: 'F',
    periodType: 'MONTHLY',
    elements: [{ key: 'n', label: 'N', type: 'NUMBER' }],
  });
  await call(b, 'PUT', '/form-sites', { formId: form.body.id, siteIds: [site], years: [2025] });
  const submit = (base: string, month: number) =>
    call(base, 'POST', '/form-submissions', {
      formId: form.body.id,
      siteId: site,
      year: 2025,
      values: [{ elementKey: 'n', periodUnit: month, value: month }],
    });
  expect((await submit(b, 1)).status).toBe(200);
  await kill(first.child);
  expect(receiver.at('/crash')).toHaveLength(0);

  const second = await start(100);
  await until('/crash', 1);
  // Time for a second (wrong) delivery to arrive, had there been one.
  await new Promise((r) => setTimeout(r, 1_500));
  const got = receiver.at('/crash');
  expect(got, second.output()).toHaveLength(1);
  expect(got[0]!.verified).toBe(true);
  expect(got[0]!.body.data.values[0].value).toBe(1);

  if (!databaseUrl) return;
  // PostgreSQL: a second process on the same database; eleven more events, each delivered once.
  const third = await start(100, mkdtempSync(join(tmpdir(), 'sdcs-webhooks-crash-')));
  for (let month = 2; month <= 12; month++) {
    const base = month % 2 ? second.base : third.base;
    expect((await submit(base, month)).status).toBe(200);
  }
  await until('/crash', 12);
  await new Promise((r) => setTimeout(r, 1_500));
  const all = receiver.at('/crash');
  expect(all).toHaveLength(12);
  expect(new Set(all.map((r) => r.id)).size).toBe(12);
  expect(all.every((r) => r.verified)).toBe(true);
}, 180_000);
