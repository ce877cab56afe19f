import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random string of `length` base62 characters (rejection sampling, so no bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** SHA-256 in lowercase hex: how tokens and API keys are stored. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

// OWASP's argon2id recommendation: 19 MiB of memory, 2 iterations, 1 lane.
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (!passwordHash) return false;
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** 43 base62 characters carry more than 256 bits. */
export const newApiKey = () => `sdcs_${randomBase62(43)}`;
export const newAccessToken = () => `sdcs_at_${randomBase62(43)}`;
export const isAccessToken = (token: string) => token.startsWith('sdcs_at_');

/**
 * Secrets the service must read back (an identity provider's client secret), sealed with
 * AES-256-GCM under a key derived from SDCS_SECRET for one purpose: `v1.<iv>.<tag>.<ciphertext>`
 * in base64url. Changing SDCS_SECRET makes sealed values unreadable (they must be entered again).
 */
function sealingKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'sdcs-sealed', purpose, 32));
}

export function sealSecret(secret: string, purpose: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(secret, purpose), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/** The plaintext of `sealSecret`'s answer; throws when it was sealed under another secret or changed. */
export function openSecret(secret: string, purpose: string, sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined)
    throw new Error('not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(secret, purpose), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/** `sealSecret` and `openSecret` bound to one purpose (webhook signing secrets). */
export function sealer(secret: string, purpose: string) {
  return {
    seal: (plaintext: string) => sealSecret(secret, purpose, plaintext),
    open: (sealed: string) => openSecret(secret, purpose, sealed),
  };
}

export type Sealer = ReturnType<typeof sealer>;
