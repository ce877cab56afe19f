import type { Tx } from '../../db/client.ts';
import { units } from '../units/index.ts';
import type { DatasetOwnership } from './datasets.policy.ts';

// Printable text without surrounding spaces: a key is looked up by exact match.
const KEY = /^[^\s\p{Cc}](?:[^\p{Cc}]*[^\s\p{Cc}])?$/u;

/** Why a coefficient key is not acceptable, or null. */
export function keyProblem(key: string): string | null {
  if (key.length === 0) return 'key is required';
  if (key.length > 200) return 'key is longer than 200 characters';
  if (!KEY.test(key)) return 'key must not start or end with spaces or contain control characters';
  return null;
}

export interface UsableUnit {
  id: string;
  symbol: string;
}

/**
 * The units an item of this dataset may name (as `data.unit` symbol or `inputUnitId`): the
 * catalog and the organization's own units; for a common dataset the catalog only, since
 * other organizations cannot see the owner's units.
 */
export async function usableUnits(tx: Tx, organizationId: string, dataset: DatasetOwnership) {
  const rows = await units.list(tx, organizationId);
  const usable = rows.filter((u) => u.organization_id === null || !dataset.is_common);
  return {
    byId: new Map<string, UsableUnit>(usable.map((u) => [u.id, u])),
    bySymbol: new Map<string, UsableUnit>(usable.map((u) => [u.symbol, u])),
  };
}

export type UnitIndex = Awaited<ReturnType<typeof usableUnits>>;

/** The calendar year (UTC) of `now` (the injected clock's): the year of items that do not name one. */
export const currentYear = (now: Date) => now.getUTCFullYear();

/** Deep equality of JSON values (metadata comparisons on import). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameJson((a as any)[k], (b as any)[k]));
}
