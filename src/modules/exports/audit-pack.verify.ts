import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import yauzl from 'yauzl';
import { keyIdOf } from './audit-pack.signing.ts';

/** What `sdcs verify-pack` found: the key used, and every problem, each naming its file. */
export interface PackCheck {
  keyId: string;
  /** The files the manifest lists, checked. */
  files: number;
  problems: string[];
}

interface Entry {
  bytes: number;
  sha256: string;
  /** Kept for the manifest, its signature and SHA256SUMS only. */
  data?: Buffer;
}

const KEPT = new Set(['manifest.json', 'manifest.sig', 'SHA256SUMS']);

/** Every entry of the zip at `path`: size and SHA-256, read one at a time (bounded memory). */
function readEntries(path: string): Promise<Map<string, Entry[]>> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error('not a zip'));
      const entries = new Map<string, Entry[]>();
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const hash = createHash('sha256');
          const chunks: Buffer[] = [];
          let bytes = 0;
          stream.on('data', (c: Buffer) => {
            hash.update(c);
            bytes += c.length;
            if (KEPT.has(entry.fileName)) chunks.push(c);
          });
          stream.on('error', reject);
          stream.on('end', () => {
            const list = entries.get(entry.fileName) ?? [];
            list.push({ bytes, sha256: hash.digest('hex'), data: Buffer.concat(chunks) });
            entries.set(entry.fileName, list);
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/**
 * A public key given as PEM text, or as the JSON of GET /exports/signing-key, read from a file
 * or fetched from an http(s) URL.
 */
export async function loadVerifyKey(source: string): Promise<KeyObject> {
  const text = /^https?:\/\//.test(source)
    ? await fetch(source).then(async (res) => {
        if (!res.ok) throw new Error(`${source} answered ${res.status}`);
        return res.text();
      })
    : await readFile(source, 'utf8');
  const trimmed = text.trim();
  const pem = trimmed.startsWith('{')
    ? String((JSON.parse(trimmed) as { publicKey?: unknown }).publicKey)
    : trimmed;
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${source} does not hold an Ed25519 public key`);
  return key;
}

/**
 * Checks an audit pack offline against `key`: the signature of `manifest.json`, then the size and
 * SHA-256 of every file it lists, that nothing else is in the zip, and that SHA256SUMS agrees.
 */
export async function verifyAuditPack(path: string, key: KeyObject): Promise<PackCheck> {
  const keyId = keyIdOf(key);
  const entries = await readEntries(path);
  const problems: string[] = [];
  const one = (name: string) => {
    const list = entries.get(name);
    if (list && list.length > 1) problems.push(`${name}: appears ${list.length} times in the zip`);
    return list?.[0];
  };
  const manifestEntry = one('manifest.json');
  const signature = one('manifest.sig');
  if (!manifestEntry) return { keyId, files: 0, problems: ['manifest.json: missing from the pack'] };
  if (!signature) problems.push('manifest.sig: missing from the pack');
  else if (!verify(null, manifestEntry.data!, key, signature.data!))
    problems.push(
      `manifest.json: the signature in manifest.sig does not match (the manifest was changed after it was signed, or it was signed by another key than ${keyId})`,
    );
  let manifest: { signature?: { keyId?: string }; files?: { path: string; bytes: number; sha256: string }[] };
  try {
    manifest = JSON.parse(manifestEntry.data!.toString('utf8'));
  } catch {
    return { keyId, files: 0, problems: [...problems, 'manifest.json: not valid JSON'] };
  }
  const signedBy = manifest.signature?.keyId;
  if (signedBy && signedBy !== keyId)
    problems.push(`manifest.json: names signing key ${signedBy}, but the key given is ${keyId}`);
  const listed = manifest.files ?? [];
  for (const f of listed) {
    const entry = one(f.path);
    if (!entry) problems.push(`${f.path}: listed in the manifest but missing from the pack`);
    else if (entry.sha256 !== f.sha256 || entry.bytes !== f.bytes)
      problems.push(`${f.path}: changed (its SHA-256 or size differs from the manifest’s)`);
  }
  const known = new Set([...listed.map((f) => f.path), 'manifest.json', 'manifest.sig']);
  for (const name of entries.keys())
    if (!known.has(name)) problems.push(`${name}: in the pack but not listed in the manifest`);
  const sums = entries.get('SHA256SUMS')?.[0]?.data?.toString('utf8');
  if (sums !== undefined) {
    const expected = listed
      .filter((f) => f.path !== 'SHA256SUMS')
      .map((f) => `${f.sha256}  ${f.path}\n`)
      .join('');
    if (sums !== expected) problems.push('SHA256SUMS: does not list the manifest’s files and digests');
  }
  return { keyId, files: listed.length, problems };
}
