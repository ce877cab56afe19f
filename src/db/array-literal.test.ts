import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers/app.ts';
import { arrayLiteral } from './array-literal.ts';

const t = useTestApp();

describe('array literals', () => {
  it('come back from the database exactly as given, whatever the text holds', async () => {
    const texts = [
      'plain',
      'a,b',
      '{braces}',
      'quote " and \\ backslash',
      'NULL',
      '',
      ' spaced ',
      'é ✓ 𝄞',
      null,
    ];
    const json = [{ a: 'x"y\\z', b: [1, null] }, 'string "quoted"', 12.5, true, null];
    const when = [new Date('2025-03-01T10:20:30.456Z'), null];
    const row = await t.database.system(async (tx) => {
      const result = await sql<{
        texts: (string | null)[];
        json: unknown[];
        numbers: number[];
        flags: boolean[];
        when: (Date | null)[];
      }>`
        select ${arrayLiteral(texts)}::text[] as texts,
               to_jsonb(${arrayLiteral(json.map((j) => (j === null ? null : JSON.stringify(j))))}::jsonb[]) as json,
               ${arrayLiteral([1, -2.5, 1e21, 0.1 + 0.2])}::double precision[] as numbers,
               ${arrayLiteral([true, false])}::boolean[] as flags,
               ${arrayLiteral(when)}::timestamptz[] as when`.execute(tx);
      return result.rows[0]!;
    });
    expect(row.texts).toEqual(texts);
    expect(row.numbers).toEqual([1, -2.5, 1e21, 0.1 + 0.2]);
    expect(row.flags).toEqual([true, false]);
    expect(row.when.map((d) => (d === null ? null : new Date(d).toISOString()))).toEqual([
      '2025-03-01T10:20:30.456Z',
      null,
    ]);
    expect(row.json).toEqual(json);
  });

  it('an empty list is an empty array', async () => {
    const row = await t.database.system(async (tx) => {
      const result = await sql<{ n: number }>`select cardinality(${arrayLiteral([])}::uuid[]) as n`.execute(
        tx,
      );
      return result.rows[0]!;
    });
    expect(row.n).toBe(0);
  });
});
