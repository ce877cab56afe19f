/**
 * Rows per multi-row statement: one JSON parameter, or at most a few thousand bound ones, which
 * keeps every statement under PostgreSQL's parameter limit.
 */
export const CHUNK = 1000;

/** `rows` cut into consecutive slices of at most `size`. */
export function chunks<T>(rows: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}
