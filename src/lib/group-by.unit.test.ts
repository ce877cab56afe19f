import { expect, it } from 'vitest';
import { groupBy } from './group-by.ts';

it('groups items by key in the order first seen, keeping the items in order', () => {
  const rows = [
    { form: 'b', id: 1 },
    { form: 'a', id: 2 },
    { form: 'b', id: 3 },
  ];
  const groups = groupBy(rows, (r) => r.form);
  expect([...groups.keys()]).toEqual(['b', 'a']);
  expect(groups.get('b')).toEqual([rows[0], rows[2]]);
  expect(groups.get('a')).toEqual([rows[1]]);
});

it('keeps what pick chooses, and gives an empty map for no items', () => {
  const groups = groupBy(
    [
      { parent: 'r', id: 'x' },
      { parent: 'r', id: 'y' },
    ],
    (s) => s.parent,
    (s) => s.id,
  );
  expect(groups).toEqual(new Map([['r', ['x', 'y']]]));
  expect(groupBy([], (x: number) => x).size).toBe(0);
});
