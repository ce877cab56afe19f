import type { UnitFactor } from './units.convert.ts';

/**
 * Dimensional analysis. A unit's `dimension` is a word (`energy`, `emissions`) or a quotient or
 * product of words (`emissions/area`, `energy·time`); `ratio` is a pure number. A dimension is
 * kept as exponents by base word, so `emissions/area × area` is `emissions`.
 */
export type Dimension = ReadonlyMap<string, number>;

/** A quantity's unit as dimension and scale: a value × factor is in the dimension's base unit. */
export interface Term {
  dimension: Dimension;
  factor: number;
}

const PURE = new Set(['ratio', '']);

/** `emissions/area` → {emissions: 1, area: -1}; `ratio` → {} (a pure number). */
export function parseDimension(text: string): Dimension {
  const out = new Map<string, number>();
  const [numerator = '', ...denominators] = text.split('/');
  const add = (words: string, sign: number) => {
    for (const word of words.split(/[·*]/).map((w) => w.trim()))
      if (!PURE.has(word)) out.set(word, (out.get(word) ?? 0) + sign);
  };
  add(numerator, 1);
  for (const d of denominators) add(d, -1);
  for (const [k, v] of out) if (v === 0) out.delete(k);
  return out;
}

export const termOfUnit = (unit: UnitFactor): Term => ({
  dimension: parseDimension(unit.dimension),
  factor: unit.factor_to_base,
});

export const PURE_NUMBER: Term = { dimension: new Map(), factor: 1 };

function combine(a: Dimension, b: Dimension, sign: number): Dimension {
  const out = new Map(a);
  for (const [k, v] of b) {
    const e = (out.get(k) ?? 0) + sign * v;
    if (e === 0) out.delete(k);
    else out.set(k, e);
  }
  return out;
}

export const multiply = (a: Term, b: Term): Term => ({
  dimension: combine(a.dimension, b.dimension, 1),
  factor: a.factor * b.factor,
});

export const divide = (a: Term, b: Term): Term => ({
  dimension: combine(a.dimension, b.dimension, -1),
  factor: a.factor / b.factor,
});

export function sameDimension(a: Dimension, b: Dimension): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** A dimension in words: `energy·emissions`, `emissions/area`, `a pure number`. */
export function describeDimension(d: Dimension): string {
  const up = [...d].filter(([, e]) => e > 0).sort(([a], [b]) => a.localeCompare(b));
  const down = [...d].filter(([, e]) => e < 0).sort(([a], [b]) => a.localeCompare(b));
  const words = (list: [string, number][]) =>
    list.map(([k, e]) => (Math.abs(e) === 1 ? k : `${k}^${Math.abs(e)}`)).join('·');
  if (up.length === 0 && down.length === 0) return 'a pure number';
  return `${up.length > 0 ? words(up) : '1'}${down.length > 0 ? `/${words(down)}` : ''}`;
}
