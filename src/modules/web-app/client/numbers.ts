// Numbers as people type them, read in their locale, or refused: never reinterpreted.
// `@internationalized/number` reads the locale's symbols (decimal, group, minus); on top of it a
// number is accepted only when its separators stand where the locale puts them, so "1,5" in
// en-US (a misplaced thousands separator) is refused instead of being read as 15.
import { NumberParser } from '@internationalized/number';

import { t } from './i18n/index.js';
import { formattingLocale } from './i18n/locale.js';

/** The person's formatting locale (the app's language, with the browser's region when it fits). */
export const browserLocale = () => formattingLocale();

const SPACES = /[\u0020\u00a0\u2009\u202f]/g;
const APOSTROPHES = /['\u2019\u02bc]/g;
const MINUS = /^[-\u2212\u2012\u2013]/;
// More significant digits than a double keeps exactly: the stored value would differ from the typed one.
const MAX_DIGITS = 15;

type Symbols = {
  decimal: string;
  group: string;
  spaceGroup: boolean;
  apostropheGroup: boolean;
  example: string;
  parser: NumberParser;
  grouping: Intl.NumberFormat;
};
const cache = new Map<string, Symbols>();
/** The locale's separators and an example number written its way ("1,234.5", "1 234,5"). */
export function numberSymbols(locale: string): Symbols {
  let symbols = cache.get(locale);
  if (symbols) return symbols;
  const format = new Intl.NumberFormat(locale, { useGrouping: 'always', numberingSystem: 'latn' });
  const parts = format.formatToParts(-12345.6);
  const group = parts.find((p) => p.type === 'group')?.value ?? ',';
  symbols = {
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
    group,
    // People type a plain space or apostrophe where the locale groups with a special one.
    spaceGroup: /[\u0020\u00a0\u2009\u202f]/.test(group),
    apostropheGroup: /['\u2019\u02bc]/.test(group),
    example: format.format(1234.5),
    parser: new NumberParser(locale),
    grouping: new Intl.NumberFormat(locale, { useGrouping: 'always', numberingSystem: 'latn' }),
  };
  cache.set(locale, symbols);
  return symbols;
}

const quote = (s: string) => `“${s}”`;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Reads what a person typed, in `locale`. Answers `{ value: null }` for an empty field,
 * `{ value }` for a number written the locale's way (with its grouping in the right places, or
 * none), and `{ error }` (plain words, with an example) for anything else.
 */
/** What `readNumber` answers. */
export type ReadNumber = { value: number | null; error?: undefined } | { error: string; value?: undefined };

export function readNumber(text: unknown, locale: string = browserLocale()): ReadNumber {
  const typed = String(text ?? '').trim();
  if (typed === '') return { value: null };
  const s = numberSymbols(locale);
  let body = typed;
  const negative = MINUS.test(body);
  if (negative) body = body.slice(1).trimStart();
  if (s.spaceGroup) body = body.replace(SPACES, s.group);
  if (s.apostropheGroup) body = body.replace(APOSTROPHES, s.group);
  const shape = new RegExp(
    `^(\\d+(?:${escapeRegExp(s.group)}\\d+)*)(?:${escapeRegExp(s.decimal)}(\\d+))?$`,
  ).exec(body);
  if (!shape) {
    if (!/\d/.test(body))
      return { error: t('number.notNumber', { typed: quote(typed), example: s.example }) };
    const key = /e/i.test(body) ? 'number.exponent' : 'number.notWritten';
    return { error: t(key, { typed: quote(typed), example: s.example }) };
  }
  const [, integer = '', fraction = ''] = shape;
  const groups = integer.split(s.group);
  const digits = groups.join('');
  if (groups.length > 1) {
    // Grouped digits must be grouped as the locale groups them ("1,234", not "1,5" or "12,34").
    const expected = s.grouping.format(BigInt(digits));
    if (expected !== integer.replace(/^0+(?=\d)/, '')) {
      const decimal = groups.length === 2 && !fraction ? groups.join(s.decimal) : '';
      return {
        error: t('number.ambiguous', {
          typed: quote(typed),
          separator: s.spaceGroup ? 'space' : 'sign',
          sign: quote(s.group),
          example: s.example,
          decimal,
          hasDecimal: decimal ? 'yes' : 'no',
        }),
      };
    }
  }
  const significant = `${digits}${fraction}`.replace(/^0+/, '').replace(/0+$/, '');
  if (significant.length > MAX_DIGITS) {
    return { error: t('number.tooManyDigits', { typed: quote(typed), max: MAX_DIGITS }) };
  }
  const value = s.parser.parse(`${negative ? '-' : ''}${digits}${fraction ? `${s.decimal}${fraction}` : ''}`);
  if (!Number.isFinite(value)) return { error: t('number.notStorable', { typed: quote(typed) }) };
  return { value: value === 0 ? 0 : value };
}

/** A number in the locale, with every decimal it has (up to 10), grouped as the locale groups. */
export function formatExact(value: number, locale: string = browserLocale()): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 10 }).format(value);
}

/** A number as people type it back in the locale (no grouping). */
export function numberForInput(value: unknown, locale: string = browserLocale()): string {
  return typeof value === 'number' && Number.isFinite(value)
    ? new Intl.NumberFormat(locale, {
        maximumFractionDigits: 10,
        useGrouping: false,
        numberingSystem: 'latn',
      }).format(value)
    : '';
}
