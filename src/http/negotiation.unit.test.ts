import { describe, expect, it } from 'vitest';
import { attachment, prefers } from './negotiation.ts';

describe('prefers', () => {
  it.each([
    [undefined, false],
    ['text/csv', true],
    ['application/json', false],
    ['*/*', false],
    ['text/csv, application/json', false],
    ['text/csv, application/json;q=0.5', true],
    ['text/*, application/json;q=0.1', true],
    ['text/*;q=0.2, text/csv;q=0, */*', false],
  ])('Accept %s -> %s', (accept, expected) => {
    expect(prefers(accept, 'text/csv', 'application/json')).toBe(expected);
  });
});

it('attachment keeps an ASCII fallback and the exact UTF-8 name', () => {
  expect(attachment('grid "Ω".csv')).toBe(
    `attachment; filename="grid _Ω_.csv"`.replace('Ω', '_') + `; filename*=UTF-8''grid%20%22%CE%A9%22.csv`,
  );
});
