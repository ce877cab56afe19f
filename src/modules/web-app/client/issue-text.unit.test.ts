import { beforeAll, describe, expect, it } from 'vitest';

// The row issues of an import and the review's refusals in the person's language (decision 239):
// every message formats with the params the service sends, in every language (an ICU mistake
// would fall back to the English sentence); years stay as written, numbers and plurals follow
// the locale. A bare document stands in for the page (the modules read it when loaded).
let issueText: typeof import('./issue-text.ts').issueText;
let i18n: typeof import('./i18n/index.ts');

beforeAll(async () => {
  const global = globalThis as { document?: unknown };
  global.document ??= { body: { dataset: {} }, documentElement: {} };
  i18n = await import('./i18n/index.ts');
  issueText = (await import('./issue-text.ts')).issueText;
});

/** Params as the service sends them, per code (the service's tests check it sends these). */
const SENT: Record<string, Record<string, string | number>> = {
  'import.sheetUnmapped': { sheet: 'Water' },
  'import.formGone': { form: '0b9f3c52-6d1e-4a8b-9c57-2f4e8d1a6b30' },
  'import.formNotFound': { key: 'source', value: 'energy' },
  'import.formAmbiguous': { key: 'source', value: 'energy' },
  'import.siteMissing': {},
  'import.siteUnknown': {},
  'import.cellEmpty': { cell: 'period' },
  'import.siteNotFound': { match: 'code', text: 'Z' },
  'import.siteAmbiguous': { match: 'metadata.erp', text: 'E-1' },
  'import.notNumber': { what: 'input', input: 'litres', cell: '"12,5"' },
  'import.tooLarge': { what: 'value', cell: '1e300' },
  'import.notWhole': { what: 'period', cell: '1.5' },
  'import.notDate': { cell: '"yesterday"' },
  'import.yearOutOfRange': { year: 1850, firstYear: 1900, lastYear: 2200 },
  'import.dateYearMismatch': { dateYear: 2024, year: 2025 },
  'import.yearMissing': {},
  'import.periodOutOfRange': { periodUnit: 13, max: 12, periodType: 'MONTHLY' },
  'import.elementUnknown': { element: 'gas' },
  'import.elementIsActivity': { element: 'fuel' },
  'import.elementIsTimestamp': { element: 'meter' },
  'import.elementNotActivity': { element: 'elec', type: 'NUMBER' },
  'import.unitUnknown': { symbol: 'parsec' },
  'import.definitionGone': { element: 'fuel' },
  'import.calculationFailed': { element: 'fuel', detail: 'Error: negative litres' },
  'import.tooManyActivities': { max: 1000 },
  'import.tooManyRows': { rows: 120000, max: 100000 },
  'import.definitionUnknown': {},
  'import.versionUnknown': {},
  'import.formSiteInactive': {},
  'import.sumTooLarge': { element: 'elec', rows: '3, 4', sheet: 'Electricity' },
  'review.commentRequired': {},
  'review.valueNotFound': {},
  'review.notManager': { site: 'Lyon plant' },
};

describe('import and review issues in the person’s language', () => {
  it('every such documented code is here, and says its params in every language', async () => {
    const { ISSUE_CODES } = await import('../../../domain/issue-codes.ts');
    const codes = Object.keys(ISSUE_CODES).filter((c) => /^(import|review)\./.test(c));
    expect(codes.sort()).toEqual(Object.keys(SENT).sort());
    for (const language of ['en', 'de', 'fr', 'es', 'pl']) {
      await i18n.useLanguage(language);
      for (const [code, params] of Object.entries(SENT)) {
        const text = issueText({ message: 'ENGLISH FALLBACK', code, params });
        expect(text, `${language} ${code}`).not.toBe('ENGLISH FALLBACK');
        // The texts it names are in the sentence (not the form's id, nor words a select reads).
        for (const [name, value] of Object.entries(params)) {
          if (
            typeof value === 'string' &&
            value.length > 3 &&
            !['form', 'periodType', 'type', 'what', 'match'].includes(name) &&
            code !== 'import.cellEmpty'
          )
            expect(text, `${language} ${code}`).toContain(value);
        }
      }
    }
  });

  it('years as written, numbers and plurals by the locale', async () => {
    await i18n.useLanguage('de');
    const year = { message: '', code: 'import.yearOutOfRange', params: SENT['import.yearOutOfRange'] };
    expect(issueText(year)).toBe('Das Jahr 1850 liegt nicht zwischen 1900 und 2200.');
    const rows = { message: '', code: 'import.tooManyRows', params: SENT['import.tooManyRows'] };
    expect(issueText(rows)).toBe(
      'Die Datei enthält 120.000 Zeilen; höchstens 100.000 können auf einmal importiert werden.',
    );
    await i18n.useLanguage('pl');
    expect(issueText({ ...rows, params: { rows: 3, max: 100000 } })).toBe(
      'Plik zawiera 3 wiersze; naraz można zaimportować najwyżej 100\u00a0000.',
    );
    expect(issueText({ message: '', code: 'import.cellEmpty', params: { cell: 'site' } })).toBe(
      'Komórka zakładu jest pusta.',
    );
  });
});
