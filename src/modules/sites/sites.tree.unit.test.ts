import { describe, expect, it } from 'vitest';
import type { TreeSite } from './sites.repository.ts';
import { SiteTree } from './sites.tree.ts';

const site = (id: string, parent_id: string | null, metadata: Record<string, unknown> = {}): TreeSite => ({
  id,
  name: id.toUpperCase(),
  code: null,
  parent_id,
  metadata,
});

/** A random tree of n sites (each site's parent an earlier one, or none), listed in random order. */
function randomTree(n: number, seed: number): TreeSite[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const rows = Array.from({ length: n }, (_, i) =>
    site(`s${i}`, i === 0 || next() < 0.1 ? null : `s${Math.floor(next() * i)}`),
  );
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  return rows;
}

const parents = new WeakMap<TreeSite[], Map<string, TreeSite>>();

/** Each site's own ancestors and itself, walking up the rows. */
const lineage = (rows: TreeSite[], id: string) => {
  if (!parents.has(rows)) parents.set(rows, new Map(rows.map((r) => [r.id, r])));
  const byId = parents.get(rows)!;
  const out: string[] = [];
  for (let s = byId.get(id); s; s = s.parent_id ? byId.get(s.parent_id) : undefined) out.push(s.id);
  return out;
};

describe('SiteTree', () => {
  it('lists each subtree, whatever the order of the rows', () => {
    const rows = randomTree(300, 7);
    const tree = new SiteTree(null, rows);
    expect(tree.size).toBe(300);
    for (const { id } of rows) {
      const expected = rows.filter((r) => lineage(rows, r.id).includes(id)).map((r) => r.id);
      expect(tree.subtree(id).sort()).toEqual(expected.sort());
    }
    expect(tree.roots().sort()).toEqual(
      rows
        .filter((r) => r.parent_id === null)
        .map((r) => r.id)
        .sort(),
    );
    expect(tree.subtree('unknown')).toEqual([]);
  });

  it('covers any set of sites exactly: weighted subtrees count each site of the set once, others never', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const rows = randomTree(120, seed);
      const tree = new SiteTree(null, rows);
      for (const share of [0.05, 0.3, 0.7, 1]) {
        const set = rows.filter((_, i) => ((i * 7919 + seed) % 100) / 100 < share).map((r) => r.id);
        const cover = tree.cover([...set, 'not-a-site']);
        const weight = new Map(cover.siteIds.map((id, i) => [id, cover.weights[i]!]));
        for (const { id } of rows) {
          // A site's values are in the subtree row of each of its ancestors (and its own).
          const counted = lineage(rows, id).reduce((sum, a) => sum + (weight.get(a) ?? 0), 0);
          expect(counted, `${id} in a set of ${set.length}`).toBe(set.includes(id) ? 1 : 0);
        }
        expect(cover.weights.every((w) => w !== 0)).toBe(true);
      }
    }
  });

  it('takes a whole subtree at its top only', () => {
    const tree = new SiteTree(null, [site('a', null), site('b', 'a'), site('c', 'b'), site('d', 'a')]);
    expect(tree.cover(['c', 'b', 'a', 'd'])).toEqual({ siteIds: ['a'], weights: [1] });
    expect(tree.cover(['a'])).toEqual({ siteIds: ['a', 'b', 'd'], weights: [1, -1, -1] });
  });

  it('resolves a metadata field from the nearest ancestor that has it', () => {
    const tree = new SiteTree(null, [
      site('plant', 'fr'),
      site('fr', 'group', { country: 'FR' }),
      site('group', null, { country: '' }),
      site('de', 'group', { country: 'DE', floors: 3 }),
      site('office', 'de', { floors: Number.NaN }),
    ]);
    const country = tree.resolvedField('country');
    const floors = tree.resolvedField('floors');
    const at = (id: string) => tree.positionOf(id)!;
    expect(['plant', 'fr', 'group', 'de', 'office'].map((id) => country[at(id)])).toEqual([
      'FR',
      'FR',
      null,
      'DE',
      'DE',
    ]);
    expect(floors[at('office')]).toBe('3');
    expect(tree.resolvedField('country')).toBe(country); // memoized
  });
});
