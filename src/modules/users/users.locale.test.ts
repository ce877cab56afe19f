import { describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createTenant } from '../../../test/helpers/factories.ts';
import { localeFromAcceptLanguage, supportedLocale } from '../../lib/locales.ts';

const t = useTestApp();

describe('the person’s language on /me', () => {
  it('GET /me answers null until a language is chosen; PATCH /me stores it for every organization', async () => {
    const tenant = await createTenant(t);
    const before = await api(t, 'GET', '/me', { token: tenant.viewer.token });
    expect(before.status).toBe(200);
    expect(before.body.user.locale).toBeNull();

    const set = await api(t, 'PATCH', '/me', { token: tenant.viewer.token, body: { locale: 'fr' } });
    expect(set.status).toBe(200);
    expect(set.body.user.locale).toBe('fr');
    expect(set.body.role).toBe('VIEWER');
    expect((await api(t, 'GET', '/me', { token: tenant.viewer.token })).body.user.locale).toBe('fr');

    const cleared = await api(t, 'PATCH', '/me', { token: tenant.viewer.token, body: { locale: null } });
    expect(cleared.body.user.locale).toBeNull();
  });

  it('refuses a language SDCS does not ship, or a malformed tag, naming the field (400), and changes nothing', async () => {
    const tenant = await createTenant(t);
    await api(t, 'PATCH', '/me', { token: tenant.owner.token, body: { locale: 'de' } });
    for (const locale of ['it', 'de_DE', '', 42, 'DE']) {
      const res = await api(t, 'PATCH', '/me', { token: tenant.owner.token, body: { locale } });
      expect(res.status, String(locale)).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(JSON.stringify(res.body.issues)).toContain('locale');
    }
    const extra = await api(t, 'PATCH', '/me', {
      token: tenant.owner.token,
      body: { locale: 'pl', name: 'x' },
    });
    expect(extra.status).toBe(400);
    expect((await api(t, 'GET', '/me', { token: tenant.owner.token })).body.user.locale).toBe('de');
  });

  it('needs a signed-in caller (401)', async () => {
    expect((await api(t, 'PATCH', '/me', { body: { locale: 'de' } })).status).toBe(401);
  });
});

describe('language negotiation', () => {
  it('maps tags to the shipped languages', () => {
    expect(supportedLocale('de-AT')).toBe('de');
    expect(supportedLocale('PL')).toBe('pl');
    expect(supportedLocale('it-IT')).toBeNull();
    expect(supportedLocale('not a tag')).toBeNull();
    expect(localeFromAcceptLanguage('it-IT,fr;q=0.5,de;q=0.8')).toBe('de');
    expect(localeFromAcceptLanguage('es-MX;q=0.2,*;q=0.1')).toBe('es');
    expect(localeFromAcceptLanguage(undefined)).toBe('en');
    expect(localeFromAcceptLanguage('ja')).toBe('en');
  });
});
