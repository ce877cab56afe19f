import { spawn, spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createExportWorld, type ExportWorld } from '../../../test/helpers/export-world.ts';
import { unzip, zipOf } from '../../../test/helpers/zip.ts';
import { API_PREFIX, buildApp } from '../../app.ts';
import { ConfigError, loadConfig } from '../../config.ts';
import { keyIdOf, packSigner } from './audit-pack.signing.ts';

// `sdcs verify-pack` and the documented check with stock tools, on packs the service made. The
// command runs as an operator runs it (bin/sdcs.js through tsx), which takes seconds to start.
const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'sdcs.js');
const t = useTestApp();
const FIXED = new Date('2026-02-03T04:05:06.789Z');
let w: ExportWorld;
let fixedApp: Awaited<ReturnType<typeof buildApp>>;
let dir: string;
let keyFile: string;
let pack: Buffer;

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

function sdcs(args: string[]) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'warn' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

async function pullFixed(): Promise<Buffer> {
  const res = await fixedApp.inject({
    method: 'GET',
    url: `${API_PREFIX}/exports/audit-pack?year=2025`,
    headers: { authorization: `Bearer ${w.tenant.owner.token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.rawPayload;
}

/** Writes `files` under a new folder of `dir`, as unzipping the pack would. */
function unpack(files: Map<string, Buffer>, name: string): string {
  const root = join(dir, name);
  for (const [path, data] of files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), data);
  }
  return root;
}

/** The pack with one byte of values.csv changed, and (`recompute`) its digests updated to match. */
async function tampered(recompute: boolean): Promise<Map<string, Buffer>> {
  const files = new Map(await unzip(pack));
  const values = Buffer.from(files.get('values.csv')!);
  const at = values.indexOf('1500');
  values[at] = '2'.charCodeAt(0); // 1500 kWh becomes 2500
  files.set('values.csv', values);
  if (!recompute) return files;
  const manifest = JSON.parse(files.get('manifest.json')!.toString());
  for (const f of manifest.files) if (f.path === 'values.csv') f.sha256 = sha256(values);
  const sums = manifest.files
    .filter((f: { path: string }) => f.path !== 'SHA256SUMS')
    .map((f: { path: string; sha256: string }) => `${f.sha256}  ${f.path}\n`)
    .join('');
  files.set('SHA256SUMS', Buffer.from(sums));
  for (const f of manifest.files)
    if (f.path === 'SHA256SUMS') {
      f.sha256 = sha256(Buffer.from(sums));
      f.bytes = Buffer.byteLength(sums);
    }
  files.set('manifest.json', Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
  return files;
}

beforeAll(async () => {
  w = await createExportWorld(t);
  fixedApp = await buildApp({ database: t.database, config: t.config, clock: () => FIXED });
  await fixedApp.ready();
  dir = mkdtempSync(join(tmpdir(), 'sdcs-pack-'));
  const key = await api(t, 'GET', '/exports/signing-key');
  keyFile = join(dir, 'signing-key.pem');
  writeFileSync(keyFile, key.body.publicKey);
  pack = await pullFixed();
  writeFileSync(join(dir, 'pack.zip'), pack);
}, 60_000);

afterAll(async () => {
  await fixedApp?.close();
});

describe('the signing key', () => {
  it('is served without a credential, and names the key that signed the manifest', async () => {
    const res = await api(t, 'GET', '/exports/signing-key');
    expect(res.status).toBe(200);
    expect(res.body.algorithm).toBe('Ed25519');
    const manifest = JSON.parse((await unzip(pack)).get('manifest.json')!.toString());
    expect(manifest.signature.keyId).toBe(res.body.keyId);
    expect(res.body.keyId).toBe(packSigner(t.config).keyId);
  });

  it('is derived from the service secret (the same in every process) unless SDCS_SIGNING_KEY is given', () => {
    const env = { SDCS_DATA_DIR: dir, SDCS_SECRET: 'another-secret-another-secret-0123456789' };
    expect(packSigner(loadConfig(env)).keyId).toBe(packSigner(loadConfig(env)).keyId);
    expect(packSigner(loadConfig(env)).keyId).not.toBe(packSigner(t.config).keyId);
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(packSigner(loadConfig({ ...env, SDCS_SIGNING_KEY: pem })).keyId).toBe(keyIdOf(publicKey));
    const file = join(dir, 'private.pem');
    writeFileSync(file, pem);
    expect(packSigner(loadConfig({ ...env, SDCS_SIGNING_KEY: file })).keyId).toBe(keyIdOf(publicKey));
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    expect(() => loadConfig({ ...env, SDCS_SIGNING_KEY: rsa.toString() })).toThrow(ConfigError);
    expect(() => loadConfig({ ...env, SDCS_SIGNING_KEY: '/no/such/key.pem' })).toThrow(ConfigError);
  });
});

describe('a pack', () => {
  it('has the same bytes for the same data at the same time', async () => {
    const again = await pullFixed();
    expect(sha256(again)).toBe(sha256(pack));
    const manifest = JSON.parse((await unzip(pack)).get('manifest.json')!.toString());
    expect(manifest.createdAt).toBe(FIXED.toISOString());
  });
});

describe('sdcs verify-pack', () => {
  it('passes on a pack as the service made it, naming the key used', async () => {
    const keyId = packSigner(t.config).keyId;
    const res = await sdcs(['verify-pack', join(dir, 'pack.zip'), '--key', keyFile]);
    expect(res.code, res.out + res.err).toBe(0);
    expect(res.out).toContain(`with signing key ${keyId}`);
    expect(res.out).toContain('OK: signature valid');
    // The key as the route answers it (JSON) serves as well.
    const json = join(dir, 'signing-key.json');
    writeFileSync(json, JSON.stringify((await api(t, 'GET', '/exports/signing-key')).body));
    const fromJson = await sdcs(['verify-pack', join(dir, 'pack.zip'), '--key', json]);
    expect(fromJson.code, fromJson.out + fromJson.err).toBe(0);
  }, 180_000);

  it('fails naming values.csv when a byte of it changed, and manifest.json when its digests were recomputed', async () => {
    const plain = join(dir, 'plain.zip');
    writeFileSync(plain, await zipOf(await tampered(false)));
    const res = await sdcs(['verify-pack', plain, '--key', keyFile]);
    expect(res.code).toBe(1);
    expect(res.out).toContain('FAILED values.csv: changed');
    expect(res.out).not.toContain('FAILED manifest.json');

    const forged = join(dir, 'forged.zip');
    writeFileSync(forged, await zipOf(await tampered(true)));
    const again = await sdcs(['verify-pack', forged, '--key', keyFile]);
    expect(again.code).toBe(1);
    expect(again.out).toContain('FAILED manifest.json: the signature in manifest.sig does not match');
  }, 180_000);

  it('fails with another key, and without one', async () => {
    const other = join(dir, 'other.pem');
    writeFileSync(other, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
    const res = await sdcs(['verify-pack', join(dir, 'pack.zip'), '--key', other]);
    expect(res.code).toBe(1);
    expect(res.out).toContain('FAILED manifest.json');
    const none = await sdcs(['verify-pack', join(dir, 'pack.zip')]);
    expect(none.code).toBe(1);
    expect(none.err).toContain('needs --key');
  }, 180_000);
});

/** The command of docs/exports.md that starts with `start` (an indented code line). */
function documented(start: string): string {
  const docs = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'exports.md'), 'utf8');
  const line = docs.split('\n').find((l) => l.startsWith(`    ${start}`));
  if (!line) throw new Error(`docs/exports.md has no command starting with ${start}`);
  return line.trim();
}

describe.runIf(hasOpenssl)('the check with stock tools, as docs/exports.md writes it', () => {
  it('openssl verifies the signature, sha256sum -c the files, grep finds SHA256SUMS in the manifest', async () => {
    const run = (folder: string, command: string) => {
      copyFileSync(keyFile, join(folder, 'signing-key.pem'));
      return spawnSync('sh', ['-c', command], { cwd: folder, encoding: 'utf8' });
    };
    const verify = documented('openssl pkeyutl -verify');
    const sums = documented('sha256sum -c');
    const listed = documented('grep -c');
    const root = unpack(await unzip(pack), 'stock');
    const good = run(root, verify);
    expect(good.status, good.stderr).toBe(0);
    expect(good.stdout).toContain('Signature Verified Successfully');
    const checked = run(root, sums);
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toContain('values.csv: OK');
    expect(run(root, listed).stdout.trim()).toBe('1');

    // Edited values.csv with SHA256SUMS and the manifest rewritten: sha256sum is fooled, openssl is not.
    const forged = unpack(await tampered(true), 'forged');
    expect(run(forged, sums).status).toBe(0);
    expect(run(forged, verify).status).not.toBe(0);
    // The same edit with only SHA256SUMS rewritten: the manifest no longer lists it.
    const partly = new Map(await unzip(pack));
    partly.set('SHA256SUMS', (await tampered(true)).get('SHA256SUMS')!);
    const half = unpack(partly, 'half');
    expect(run(half, listed).stdout.trim()).toBe('0');
  });

  it('the key id is the documented digest of the public key', () => {
    const command = documented('openssl pkey -pubin');
    expect(command).toContain('cut -c1-16');
    const id = spawnSync('sh', ['-c', command.replace('signing-key.pem', keyFile)], { encoding: 'utf8' });
    expect(id.stdout.trim()).toBe(packSigner(t.config).keyId);
  });
});
