import { beforeAll, describe, expect, it } from 'vitest';

// The refusals the app shows (decision 212): the code's sentence in the person's language where the
// service's message only restates the code; the service's own words where they say more (issues,
// a conflict's reason). api.ts reads the page's data-api when loaded: a bare document stands in,
// set before the modules are imported.
let api: typeof import('./api.ts');
let i18n: typeof import('./i18n/index.ts');

beforeAll(async () => {
  const global = globalThis as { document?: unknown };
  global.document ??= { body: { dataset: {} }, documentElement: {} };
  api = await import('./api.ts');
  i18n = await import('./i18n/index.ts');
});

const refusal = (status: number, body: ConstructorParameters<typeof api.ApiError>[1]) =>
  new api.ApiError(status, body);

describe('errorLines', () => {
  it('says a refusal code in plain words in the person’s language, not the service’s fixed English', async () => {
    await i18n.useLanguage('en');
    const forbidden = refusal(403, { code: 'FORBIDDEN', message: 'Insufficient access' });
    expect(api.errorLines(forbidden)).toEqual(['Your role or your sites do not allow this.']);
    await i18n.useLanguage('de');
    expect(api.errorLines(forbidden)).toEqual(['Ihre Rolle oder Ihre Standorte erlauben das nicht.']);
    await i18n.useLanguage('pl');
    expect(api.errorLines(refusal(429, { code: 'TOO_MANY_REQUESTS', message: 'Too many requests' }))).toEqual(
      ['Zbyt wiele żądań naraz: odczekaj chwilę i spróbuj ponownie.'],
    );
    // A code the app does not know: the service's message.
    expect(api.errorLines(refusal(418, { code: 'TEAPOT', message: 'I am a teapot' }))).toEqual([
      'I am a teapot',
    ]);
  });

  it('keeps the service’s specific words: issues, and a conflict’s reason', async () => {
    await i18n.useLanguage('fr');
    const locked = refusal(409, { code: 'CONFLICT', message: 'March is locked: the audit has started' });
    expect(api.errorLines(locked)).toEqual(['March is locked: the audit has started']);
    const issues = refusal(400, {
      code: 'BAD_REQUEST',
      message: 'Invalid input data',
      issues: [{ path: 'values.0', message: 'Electricity used cannot be less than 0.' }],
    });
    expect(api.errorLines(issues)).toEqual(['Electricity used cannot be less than 0.']);
    expect(
      api.errorLines(refusal(401, { code: 'UNAUTHORIZED', message: 'Invalid e-mail or password' })),
    ).toEqual(['Adresse e-mail ou mot de passe incorrect']);
  });
});

describe('issueText (decision 225)', () => {
  it('says a coded issue in the person’s language, its numbers formatted in their locale', async () => {
    await i18n.useLanguage('de');
    const above = refusal(400, {
      code: 'BAD_REQUEST',
      message: 'Invalid input data',
      issues: [
        {
          path: 'values.0',
          message: 'Electricity used must be at most 1200.5 kWh',
          code: 'value.aboveMaximum',
          params: {
            label: 'Electricity used',
            max: 1200.5,
            value: 2500,
            unit: 'kWh',
            unitName: 'kilowatt-hour',
          },
        },
      ],
    });
    expect(api.errorLines(above)).toEqual([
      'Electricity used darf nicht größer als 1.200,5 (kilowatt-hour) sein.',
    ]);
  });

  it('says a lock’s refusal in Polish, the period named in Polish', async () => {
    await i18n.useLanguage('pl');
    const locked = refusal(400, {
      code: 'BAD_REQUEST',
      message: 'The period is locked',
      issues: [
        {
          path: 'values.0',
          message: 'Electricity used for March 2025 is locked: closed for reporting',
          code: 'period.locked',
          params: {
            label: 'Electricity used',
            year: 2025,
            periodType: 'MONTHLY',
            periodUnit: 3,
            site: 'Plant',
            form: 'Energy',
            lockId: 'x',
          },
        },
      ],
    });
    expect(api.errorLines(locked)).toEqual([
      'Electricity used za marzec 2025 jest zablokowane: raportowanie zostało zamknięte.',
    ]);
  });

  it('keeps the service’s sentence for a code the app does not know, or params it cannot use', async () => {
    await i18n.useLanguage('de');
    const unknown = refusal(400, {
      code: 'BAD_REQUEST',
      message: 'Invalid input data',
      issues: [{ message: 'Something new', code: 'value.somethingNew', params: {} }],
    });
    expect(api.errorLines(unknown)).toEqual(['Something new']);
  });
});

it('every documented issue code has its message in the app', async () => {
  const { ISSUE_CODES } = await import('../../../domain/issue-codes.ts');
  const en = (await import('./i18n/en.json')).default as Record<string, string>;
  const missing = Object.keys(ISSUE_CODES).filter((code) => !(`issue.${code}` in en));
  expect(missing).toEqual([]);
});
