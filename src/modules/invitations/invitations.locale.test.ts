import { describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createTenant } from '../../../test/helpers/factories.ts';
import {
  INVITE_URL,
  invitationHelpers,
  invitationTestConfig,
  newEmail,
} from '../../../test/helpers/invitations.ts';

const t = useTestApp(invitationTestConfig());
const { mailsTo, tokenMailedTo, accept } = invitationHelpers(t);

describe('the invitation e-mail in the invitee’s language', () => {
  it('is written in the language the inviter sets, which the new account keeps', async () => {
    const tenant = await createTenant(t);
    const email = newEmail('de');
    const res = await api(t, 'POST', INVITE_URL, {
      token: tenant.owner.token,
      body: { email, assignedSiteIds: [], role: 'COLLECTOR', locale: 'de' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [mail] = await mailsTo(email);
    expect(mail!.subject).toMatch(/^Einladung zu .+ auf SDCS$/);
    expect(mail!.text).toContain('lädt Sie ein');
    expect(mail!.text).toContain(' als Erfasser beizutreten.');
    expect(mail!.text).toContain('Nehmen Sie die Einladung hier an:');
    expect(mail!.html).toContain('>Einladung annehmen</a>');
    // The expiry in German words, 7 days on (a German month name, "um" before the time).
    expect(mail!.text).toMatch(/Der Link funktioniert einmal, bis \d{1,2}\. \S+ \d{4} um \d{2}:\d{2} UTC\./);
    const joined = await accept(await tokenMailedTo(email));
    expect(joined.status).toBe(200);
    const me = await api(t, 'GET', '/me', { token: joined.body.accessToken });
    expect(me.body.user.locale).toBe('de');
  });

  it('is English without a language, and in the invitee’s own choice when the inviter sets none', async () => {
    const tenant = await createTenant(t);
    const plain = newEmail('en');
    await api(t, 'POST', INVITE_URL, {
      token: tenant.owner.token,
      body: { email: plain, assignedSiteIds: [], role: 'VIEWER' },
    });
    const [english] = await mailsTo(plain);
    expect(english!.subject).toMatch(/^Invitation to join .+ on SDCS$/);
    expect(english!.text).toContain('on SDCS as Viewer.');

    // A person who chose Polish, invited to another organization without a language: Polish.
    const other = await createTenant(t);
    await api(t, 'PATCH', '/me', { token: other.viewer.token, body: { locale: 'pl' } });
    await api(t, 'POST', INVITE_URL, {
      token: tenant.owner.token,
      body: { email: other.viewer.email, assignedSiteIds: [], role: 'VIEWER' },
    });
    const polish = (await mailsTo(other.viewer.email)).at(-1)!;
    expect(polish.subject).toMatch(/^Zaproszenie do .+ w SDCS$/);
    expect(polish.text).toContain('w roli: Przeglądający.');

    // The inviter's French is used for this e-mail; the invitee's own Polish stays on the account.
    const third = await createTenant(t);
    await api(t, 'POST', INVITE_URL, {
      token: third.owner.token,
      body: { email: other.viewer.email, assignedSiteIds: [], role: 'VIEWER', locale: 'fr' },
    });
    expect((await mailsTo(other.viewer.email)).at(-1)!.subject).toMatch(
      /^Invitation à rejoindre .+ sur SDCS$/,
    );
    expect((await api(t, 'GET', '/me', { token: other.viewer.token })).body.user.locale).toBe('pl');
  });

  it('refuses a language SDCS does not ship (400 naming locale), and invites no one', async () => {
    const tenant = await createTenant(t);
    const email = newEmail('it');
    const res = await api(t, 'POST', INVITE_URL, {
      token: tenant.owner.token,
      body: { email, assignedSiteIds: [], role: 'VIEWER', locale: 'it' },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.issues)).toContain('locale');
    expect(await mailsTo(email)).toEqual([]);
  });
});
