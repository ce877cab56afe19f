import { createHash } from 'node:crypto';
import { canonicalHash, canonicalJson, sortKeys } from '../../lib/canonical.ts';
import { Turns } from '../../lib/turns.ts';

export { canonicalHash, canonicalJson };

/** What JSON.stringify leaves out of an object and writes as null in an array. */
const omitted = (value: unknown) =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol';

/**
 * The order `sortKeys` gives an object's keys: sorted, as an object keeps them (integer-like keys
 * first, in numeric order).
 */
function keyOrder(value: object): string[] {
  const order: Record<string, true> = {};
  for (const key of Object.keys(value).sort()) order[key] = true;
  return Object.keys(order);
}

/** Whether `value` holds an array or object (a row of cells does not: it is written at once). */
function nests(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  for (const child of Object.values(value)) if (child && typeof child === 'object') return true;
  return false;
}

/**
 * `canonicalHash` of a large value (a 10,000-row import body) without holding the event loop:
 * the same text is hashed piece by piece, with a turn of the loop when one is due (decision 0165).
 */
export async function canonicalHashCooperative(value: unknown, turns = new Turns()): Promise<string> {
  const hash = createHash('sha256');
  // The text is handed to the hash in pieces of about 64 KiB (one update per cell was 3x slower).
  let text = '';
  const put = (piece: string) => {
    text += piece;
    if (text.length >= 65_536) {
      hash.update(text);
      text = '';
    }
  };
  const write = async (v: unknown): Promise<void> => {
    if (turns.due()) await turns.give();
    if (Array.isArray(v)) {
      put('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) put(',');
        if (turns.due()) await turns.give();
        const item = v[i];
        if (omitted(item)) put('null');
        else if (nests(item)) await write(item);
        else put(JSON.stringify(sortKeys(item)));
      }
      put(']');
      return;
    }
    if (v && typeof v === 'object') {
      put('{');
      let first = true;
      for (const key of keyOrder(v)) {
        const item = (v as Record<string, unknown>)[key];
        if (omitted(item)) continue;
        put(`${first ? '' : ','}${JSON.stringify(key)}:`);
        first = false;
        if (item && typeof item === 'object') await write(item);
        else put(JSON.stringify(item));
      }
      put('}');
      return;
    }
    put(JSON.stringify(v));
  };
  // Parsing and validating the body came just before, in the same turn: the loop gets one first.
  await turns.give();
  await write(value);
  hash.update(text);
  return hash.digest('hex');
}
