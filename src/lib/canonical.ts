import { createHash } from 'node:crypto';

/** JSON text with the keys of every object sorted: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** SHA-256 hex of the canonical JSON of `value`. */
export const canonicalHash = (value: unknown) =>
  createHash('sha256').update(canonicalJson(value)).digest('hex');
