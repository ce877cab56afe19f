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
