/** A value that can be an element of an array parameter. */
export type ArrayElement = string | number | boolean | Date | null;

// Most elements (ids, numbers' texts) hold neither a backslash nor a double quote: two searches are
// half the cost of two replacements that find nothing.
const quote = (text: string) =>
  text.includes('"') || text.includes('\\')
    ? `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
    : `"${text}"`;

/**
 * A PostgreSQL array literal (`{"a","b",NULL}`) of `values`, to send as one text parameter cast to
 * an array type (`${arrayLiteral(ids)}::uuid[]`). Every element is quoted (so commas, braces,
 * spaces and the word NULL inside a text stay text); null is SQL NULL; a Date is its ISO time.
 * Both drivers would turn a JS array into the same literal, element by element through their
 * general value conversion: on the write path, for arrays of thousands of ids and JSON texts,
 * that conversion cost more than the statement's own work in the database.
 */
export function arrayLiteral(values: readonly ArrayElement[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = 'NULL';
    else if (typeof v === 'string') parts[i] = quote(v);
    else if (typeof v === 'number') parts[i] = `"${v}"`;
    else if (typeof v === 'boolean') parts[i] = v ? 't' : 'f';
    else parts[i] = `"${v.toISOString()}"`;
  }
  return `{${parts.join(',')}}`;
}
