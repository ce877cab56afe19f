import { describe, expect, it } from 'vitest';
import { formatExact, numberForInput, readNumber } from './numbers.js';

// What a person types in each locale, and the number stored (worked out by hand), or a refusal.
// NBSP is the no-break space, NNBSP the narrow one (what fr-FR formats with since CLDR 34).
const NBSP = '\u00a0';
const NNBSP = '\u202f';

const ACCEPTED: Record<string, [string, number][]> = {
  'en-US': [
    ['1.5', 1.5],
    ['1,234.5', 1234.5],
    ['1,234', 1234],
    ['12,500,000', 12_500_000],
    ['-5', -5],
    ['−5', -5],
    ['0.001', 0.001],
    ['  42  ', 42],
    ['007', 7],
  ],
  'en-GB': [
    ['1.5', 1.5],
    ['12,500.25', 12500.25],
    ['1234.5', 1234.5],
  ],
  'de-DE': [
    ['1,5', 1.5],
    ['1.234,5', 1234.5],
    ['1234,5', 1234.5],
    ['1.234', 1234],
    ['-0,25', -0.25],
  ],
  'fr-FR': [
    ['1,5', 1.5],
    ['12 500,5', 12500.5],
    [`12${NBSP}500,5`, 12500.5],
    [`12${NNBSP}500,5`, 12500.5],
    ['12500,5', 12500.5],
    ['1 000 000', 1_000_000],
  ],
  'de-CH': [
    ['1.5', 1.5],
    ["1'234.5", 1234.5],
    ['1’234.5', 1234.5],
    ['1234.5', 1234.5],
  ],
  'pl-PL': [
    ['1,5', 1.5],
    ['12 345,5', 12345.5],
    [`12${NBSP}345,5`, 12345.5],
    ['1234,5', 1234.5],
  ],
  'es-ES': [
    ['1,5', 1.5],
    ['12.345,5', 12345.5],
    ['1234,5', 1234.5],
    ['1.234', 1234],
  ],
};

const REFUSED: Record<string, string[]> = {
  // "1,5" would be 15 with the commas dropped: a misplaced thousands separator is refused.
  'en-US': [
    '1,5',
    '12 500,5',
    '1e309',
    '1e3',
    'Infinity',
    '∞',
    'forty',
    '1,2,3',
    '12,34.5',
    '1.2.3',
    '1.',
    ',5',
    '12 MWh',
    '12345678901234567',
    'NaN',
  ],
  'en-GB': ['1,5', '1.234,5', '1e309'],
  'de-DE': ['1.5', '1,234.5', '12.34', '1,2,3', 'zwölf', '1e309'],
  'fr-FR': ['1.5', '12 500.5', '1 23,5', '12,500.5', 'douze'],
  'de-CH': ['1,5', "12'34.5", '1.234,5'],
  'pl-PL': ['1.5', '12 34,5', '1,234.5'],
  'es-ES': ['1.5', '12.34', '1,234.5'],
};

describe('readNumber: what each locale writes unambiguously is read as written', () => {
  for (const [locale, cases] of Object.entries(ACCEPTED)) {
    it.each(cases)(`${locale}: %j is %d`, (typed, expected) => {
      expect(readNumber(typed, locale)).toEqual({ value: expected });
    });
  }
});

describe('readNumber: anything else is refused with plain words, never reinterpreted', () => {
  for (const [locale, cases] of Object.entries(REFUSED)) {
    it.each(cases)(`${locale}: %j is refused`, (typed) => {
      const read = readNumber(typed, locale);
      expect(read.value).toBeUndefined();
      expect(read.error).toMatch(/^“.+”/);
    });
  }

  it('says how the locale writes numbers and what to type for a decimal', () => {
    expect(readNumber('1,5', 'en-US').error).toBe(
      '“1,5” is ambiguous: here “,” separates thousands, as in 1,234.5. For a decimal number, type 1.5.',
    );
    expect(readNumber('1.5', 'de-DE').error).toBe(
      '“1.5” is ambiguous: here “.” separates thousands, as in 1.234,5. For a decimal number, type 1,5.',
    );
    expect(readNumber('12 500,5', 'en-US').error).toBe(
      '“12 500,5” is not written as a number here: write it like 1,234.5.',
    );
    expect(readNumber('1e309', 'en-US').error).toContain('without an exponent');
    expect(readNumber('forty', 'en-US').error).toBe('“forty” is not a number: write it like 1,234.5.');
    expect(readNumber('douze', 'fr-FR').error).toBe('“douze” is not a number: write it like 1\u202f234,5.');
  });

  it('an empty field is no value', () => {
    expect(readNumber('   ', 'en-US')).toEqual({ value: null });
  });
});

describe('formatting back', () => {
  it('shows every decimal in the locale, grouped, and gives the input text ungrouped', () => {
    expect(formatExact(12500.5, 'fr-FR')).toBe(`12${NNBSP}500,5`);
    expect(formatExact(1234.5678, 'de-DE')).toBe('1.234,5678');
    expect(numberForInput(12500.5, 'fr-FR')).toBe('12500,5');
    // What is typed back reads as the same number.
    for (const locale of Object.keys(ACCEPTED)) {
      expect(readNumber(numberForInput(-98765.4321, locale), locale)).toEqual({ value: -98765.4321 });
      expect(readNumber(formatExact(98765.4321, locale), locale)).toEqual({ value: 98765.4321 });
    }
  });
});
