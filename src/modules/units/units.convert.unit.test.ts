import { describe, expect, it } from 'vitest';
import { convertValue, UnitMismatchError } from './units.convert.ts';

const kWh = { id: 'a', symbol: 'kWh', dimension: 'energy', factor_to_base: 1 };
const MWh = { id: 'b', symbol: 'MWh', dimension: 'energy', factor_to_base: 1000 };
const GJ = { id: 'c', symbol: 'GJ', dimension: 'energy', factor_to_base: 1000 / 3.6 };
const kg = { id: 'd', symbol: 'kg', dimension: 'mass', factor_to_base: 1 };

describe('convertValue', () => {
  it('converts within a dimension without float noise', () => {
    expect(convertValue(1.2, MWh, kWh)).toBe(1200);
    expect(convertValue(1500, kWh, MWh)).toBe(1.5);
    expect(convertValue(1, GJ, kWh)).toBe(277.777777777778);
    expect(convertValue(7, kWh, kWh)).toBe(7);
  });

  it('refuses to convert across dimensions', () => {
    expect(() => convertValue(1, kWh, kg)).toThrow(UnitMismatchError);
  });
});
