import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/errors.ts';
import {
  exportFileName,
  metadataCell,
  parseCsv,
  parseNumber,
  readHeader,
  readTags,
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
