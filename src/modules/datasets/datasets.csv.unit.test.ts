import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/errors.ts';
import {
  exportFileName,
  metadataCell,
  neutralizeCell,
  parseCsv,
  parseNumber,
  readHeader,
  readTags,
  restoreCell,
  tagsCell,
} from './datasets.csv.ts';

describe('parseNumber', () => {
  it('reads decimal and exponent notation, with surrounding spaces', () => {
    expect(parseNumber('0.233')).toBe(0.233);
    expect(parseNumber(' -1.5e-9 ')).toBe(-1.5e-9);
    expect(parseNumber('+3')).toBe(3);
    expect(parseNumber('.5')).toBe(0.5);
    expect(parseNumber('1.7976931348623157e+308')).toBe(Number.MAX_VALUE);
  });

  it('refuses anything else', () => {
    for (const text of ['', ' ', 'abc', '1,5', '0x10', 'Infinity', 'NaN', '1e999', '1 2', '--1']) {
      expect(parseNumber(text), text).toBeNull();
    }
  });
});

describe('readHeader', () => {
  it('finds the columns, in any order, with metadata fields kept as written', () => {
    const cols = readHeader(['key', ' value ', 'metadata. odd,name', 'label', 'year']);
    expect(cols).toMatchObject({ key: 0, value: 1, label: 3, year: 4, unit: undefined, width: 5 });
    expect([...cols.metadata]).toEqual([
      [' odd,name', { column: 2, json: false, name: 'metadata. odd,name' }],
    ]);
  });

  it('names every problem of the header', () => {
    try {
      readHeader(['label', 'label', 'colour']);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).issues?.map((i) => i.message)).toEqual([
        'column "label" appears twice',
        'unknown column "colour"',
        'column "key" is required',
        'column "value" is required',
      ]);
    }
  });
});

describe('CSV helpers', () => {
  it('writes metadata values as text', () => {
    expect([
      metadataCell('a'),
      metadataCell(2),
      metadataCell(false),
      metadataCell(null),
      metadataCell({ a: 1 }),
    ]).toEqual(['a', '2', 'false', '', '{"a":1}']);
  });

  it('names export files after the dataset', () => {
    expect(exportFileName('Grid factors 2024 (UK)')).toBe('grid-factors-2024-uk.csv');
    expect(exportFileName('Émissions')).toBe('emissions.csv');
    expect(exportFileName('日本')).toBe('dataset.csv');
  });

  it('parses quoted fields and a byte order mark, and rejects unbalanced quotes', () => {
    expect(parseCsv('\uFEFFlabel,key\n"a,""b""\nc",k\n')).toEqual([
      ['label', 'key'],
      ['a,"b"\nc', 'k'],
    ]);
    expect(() => parseCsv('a,b\n"open,1\n')).toThrow(AppError);
  });
});

describe('tags in one cell', () => {
  it('as `a;b` when that reads back exactly, else as a JSON array', () => {
    expect(tagsCell([])).toBe('');
    expect(tagsCell(['scope2', 'fuel'])).toBe('scope2;fuel');
    for (const tags of [['a;b'], [' padded'], ['[x]'], ['scope2', 'a;b']]) {
      expect(tagsCell(tags)).toBe(JSON.stringify(tags));
      expect(readTags(tagsCell(tags))).toEqual(tags);
    }
    expect(readTags('scope2; fuel ;;scope2')).toEqual(['scope2', 'fuel']);
    expect(readTags('[1]')).toMatch(/tags is neither/);
    expect(readTags('["x",')).toMatch(/tags is neither/);
    expect(readTags(JSON.stringify(['x'.repeat(101)]))).toMatch(/1 to 100 characters/);
  });
});

/**
 * Issue 41, item 7: a leading space, a leading line break and a full-width `＝` passed unprefixed,
 * and an import that trims spaces (LibreOffice's option) could run them as formulas.
 */
describe('CSV formula neutralising', () => {
  const prefixed = (cell: string) => {
    const out = neutralizeCell(cell);
    return out === `'${cell}`;
  };

  it.each([
    ['=1+2', 'plain ='],
    ['+1+2', 'plain +'],
    ['-x', 'plain -'],
    ['@SUM(A1)', 'plain @'],
    ['\tTAB', 'a leading tab'],
    ['\rCR', 'a leading carriage return'],
    [' =1+4', 'a leading space'],
    ['   +cmd', 'several leading spaces'],
    ['\n=1+4', 'a leading line break'],
    ['\r\n=1+4', 'a leading CR LF'],
    ['\u00a0=1+4', 'a leading no-break space'],
    ['\u3000=1+4', 'a leading ideographic space'],
    ['＝1+5', 'a full-width equals sign'],
    ['﹦1+5', 'a small equals sign'],
    ['＋1', 'a full-width plus'],
    ['－1', 'a full-width minus'],
    ['＠A1', 'a full-width at sign'],
    [' ＝1+5', 'a space, then a full-width equals sign'],
    ["'=quoted", 'a quote before ='],
    ["'' =twice", 'quotes and a space before ='],
  ])('prefixes %j (%s) and restores it exactly', (cell) => {
    expect(prefixed(cell)).toBe(true);
    expect(restoreCell(neutralizeCell(cell))).toBe(cell);
  });

  it.each([
    '-5',
    ' -2.5',
    '+3',
    '-1e-9',
    '-0',
    ' -7 ',
    'text',
    ' leading space',
    '\nline',
    "'plain quote",
    'a=b',
    '',
  ])('leaves %j alone (numbers stay numbers)', (cell) => {
    expect(neutralizeCell(cell)).toBe(cell);
    expect(restoreCell(cell)).toBe(cell);
  });

  it('round-trips any text exactly, and what it writes starts like no formula after its quote', () => {
    const piece = fc.constantFrom(
      "'",
      ' ',
      '\n',
      '\r',
      '\t',
      '=',
      '＝',
      '+',
      '－',
      '@',
      '1',
      'a',
      '\u3000',
      '.',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(piece, { maxLength: 6 }).map((p) => p.join('')),
          fc.string(),
        ),
        (cell) => {
          const written = neutralizeCell(cell);
          expect(restoreCell(written)).toBe(cell);
          // Either left as it was (not formula-like, or a number), or protected by one more quote.
          if (written !== cell) expect(written).toBe(`'${cell}`);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
