import { describe, expect, it } from 'vitest';
import { type CsvSiteRow, parseSitesCsv } from './sites.csv.ts';
import { type ImportAccess, planImport, type StoredSite } from './sites.import.ts';

const owner: ImportAccess = { canSee: () => true, canPlaceUnder: () => true };

/** Rows from `name,code,parent` triples, numbered from 1. */
const rows = (...specs: Array<[string, string?, string?]>): CsvSiteRow[] =>
  parseSitesCsv(['name,code,parent', ...specs.map(([n, c = '', p = '']) => `${n},${c},${p}`)].join('\n'));

describe('import planning (no database)', () => {
  it('orders parents before children, whatever their order in the file', () => {
    const plan = planImport(rows(['C', 'c', 'b'], ['B', 'b', 'a'], ['A', 'a']), [], owner);
    expect(plan.errors).toEqual([]);
    expect(plan.sites.map((s) => s.name)).toEqual(['A', 'B', 'C']);
    const [a, b, c] = plan.sites;
    expect(b!.parentId).toBe(a!.id);
    expect(c!.parentId).toBe(b!.id);
  });

  it('handles a chain of 10,000 rows written backwards without recursion', () => {
    const specs: Array<[string, string, string]> = [];
    for (let n = 10_000; n >= 1; n--) specs.push([`S${n}`, `c${n}`, n === 1 ? '' : `c${n - 1}`]);
    const plan = planImport(rows(...specs), [], owner);
    expect(plan.errors).toEqual([]);
    expect(plan.sites[0]!.name).toBe('S1');
    expect(plan.sites.at(-1)!.name).toBe('S10000');
  });

  it('fails every row of a cycle, and the rows hanging below it', () => {
    const plan = planImport(
      rows(['A', 'a', 'c'], ['B', 'b', 'a'], ['C', 'c', 'b'], ['D', 'd', 'c'], ['E']),
      [],
      owner,
    );
    expect(plan.errors).toEqual([
      'Row 1: parent references form a cycle (rows 1, 2, 3)',
      'Row 2: parent references form a cycle (rows 1, 2, 3)',
      'Row 3: parent references form a cycle (rows 1, 2, 3)',
      'Row 4: parent row 3 was not imported',
    ]);
    expect(plan.sites.map((s) => s.name)).toEqual(['E']);
  });

  it('prefers an id, then a code, then a name; names are ambiguous across stored sites and rows', () => {
    const stored: StoredSite[] = [
      { id: '4f7c7a8e-5c1d-4c1e-9d2b-111111111111', name: 'Depot', code: 'north' },
      { id: '4f7c7a8e-5c1d-4c1e-9d2b-222222222222', name: 'North', code: null },
    ];
    const plan = planImport(
      rows(
        ['X', '', 'NORTH'],
        ['Y', '', 'depot'],
        ['Depot'],
        ['Z', '', '4F7C7A8E-5C1D-4C1E-9D2B-222222222222'],
      ),
      stored,
      owner,
    );
    expect(plan.sites.find((s) => s.name === 'X')!.parentId).toBe(stored[0]!.id);
    expect(plan.sites.find((s) => s.name === 'Z')!.parentId).toBe(stored[1]!.id);
    expect(plan.errors).toEqual([
      'Row 2: parent "depot" is ambiguous: 2 sites have that name; use a code or id',
    ]);
  });

  it('ignores stored sites the caller cannot see, except to keep their codes taken', () => {
    const hidden: StoredSite = { id: '4f7c7a8e-5c1d-4c1e-9d2b-333333333333', name: 'Secret', code: 'SEC' };
    const manager: ImportAccess = { canSee: () => false, canPlaceUnder: (p) => p !== null };
    const plan = planImport(
      rows(['A', 'a', 'Secret'], ['B', 'sec', 'a'], ['C', 'c', hidden.id]),
      [hidden],
      manager,
    );
    expect(plan.errors).toEqual([
      'Row 1: parent "Secret" not found',
      'Row 2: code "sec" is already used by an existing site',
      `Row 3: parent "${hidden.id}" not found`,
    ]);
  });
});
