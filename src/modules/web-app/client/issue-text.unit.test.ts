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
  'media.nameInvalid': {},
  'media.typeNotAllowed': { extension: '.exe', allowed: '.pdf, .png' },
  'media.typeMismatch': { expected: 'application/pdf', extension: '.pdf' },
  'media.tooLarge': { maxBytes: 10485760 },
  'media.quotaExceeded': { quotaBytes: 1073741824, usedBytes: 1073000000 },
  'value.fileUnknown': {},
  'value.fileNotUploaded': {},
  'activity.notObject': {},
  'activity.inputTooLong': { max: 4000 },
  'activity.inputUnknown': { input: 'litres' },
  'activity.inputRequired': { input: 'litres' },
  'activity.inputType': { input: 'litres', type: 'number' },
  'activity.inputTooLarge': { input: 'litres' },
  'activity.inputNotOption': { input: 'fuel', options: 'diesel, petrol' },
  'activity.tooMany': { count: 1200, max: 1000 },
  'activity.calculationFailed': { label: 'Fuel burnt', detail: 'Error: negative litres' },
  'activity.sumTooLarge': { label: 'Fuel burnt' },
};

describe('import, review, file and activity issues in the person’s language', () => {
  it('every such documented code is here, and says its params in every language', async () => {
    const { ISSUE_CODES } = await import('../../../domain/issue-codes.ts');
    const codes = Object.keys(ISSUE_CODES).filter((c) =>
      /^(import|review|media|activity|value\.file)/.test(c),
    );
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
            !['form', 'periodType', 'type', 'what', 'match', 'expected'].includes(name) &&
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

  it('sizes in the locale’s units, a file without an extension, an input’s type in words', async () => {
    await i18n.useLanguage('de');
    expect(issueText({ message: '', code: 'media.tooLarge', params: { maxBytes: 10485760 } })).toBe(
      'Die Datei ist zu groß: höchstens 10 MB.',
    );
    const none = { message: '', code: 'media.typeNotAllowed', params: { extension: '', allowed: '.pdf' } };
    expect(issueText(none)).toBe('Dateien ohne Endung werden nicht angenommen. Angenommen: .pdf.');
    await i18n.useLanguage('pl');
    const typed = { message: '', code: 'activity.inputType', params: { input: 'litry', type: 'date' } };
    expect(issueText(typed)).toBe('„litry” musi być datą.');
    const size = { message: '', code: 'media.tooLarge', params: { maxBytes: 1572864 } };
    // Intl's own space between number and unit (a no-break space of one width or another).
    expect(issueText(size)).toMatch(/^Plik jest za duży: najwyżej 1,5\s?MB\.$/u);
  });
});
