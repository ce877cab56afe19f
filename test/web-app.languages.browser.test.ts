import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import de from '../src/modules/web-app/client/i18n/de.json' with { type: 'json' };
import en from '../src/modules/web-app/client/i18n/en.json' with { type: 'json' };
import { api } from './helpers/app.ts';
import { axeViolations, collectErrors, hasChromium, launchChromium, NO_CHROMIUM } from './helpers/browser.ts';
import { createWebAppWorld, setPassword, type WebAppWorld } from './helpers/web-app-world.ts';

// The app in the person's language, in a real browser (Chromium through playwright-core): the
// browser's language when the person chose none, the person's choice (PATCH /me) whatever the
// browser says; axe-core finds nothing in any language. Screenshots go to test-output/.

const OUT = 'test-output';
const PASSWORD = 'correct horse battery';
let world: WebAppWorld;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  mkdirSync(OUT, { recursive: true });
  world = await createWebAppWorld();
  await setPassword(world.t, world.tenant.manager.userId, PASSWORD);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
}, 120_000);

async function shot(page: Page, name: string) {
  const violations = await axeViolations(page);
  await page.screenshot({ path: `${OUT}/web-app-language-${name}.png`, fullPage: true });
  expect(violations, name).toEqual([]);
}

/** A promise and the function that settles it: a request held back until the test lets it go. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reached: () => void = () => {};
  const hit = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return { open, opened, reached, hit };
}

/**
 * The app's English sentences that German says otherwise (plain ones, 8 characters or more): none
 * of them may be on the page of a German browser at any moment.
 */
const ENGLISH_ONLY = Object.entries(en as Record<string, string>)
  .filter(([key, text]) => (de as Record<string, string>)[key] !== text && !/[{<]/.test(text))
  .map(([, text]) => text)
  .filter((text) => text.length >= 8);

async function signInAs(
  page: Page,
  email: string,
  labels: { email: string; password: string; submit: string },
) {
  await page.goto(`${world.base}/app/sign-in`);
  await page.getByLabel(labels.email).fill(email);
  await page.getByLabel(labels.password, { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: labels.submit }).click();
}

describe.skipIf(!hasChromium)(`the app's language (${hasChromium ? 'Chromium' : NO_CHROMIUM})`, () => {
  it('de-DE browser: sign-in, home and entry screen are German', async () => {
    const context = await browser!.newContext({ locale: 'de-DE', timezoneId: 'UTC' });
    const page = await context.newPage();
    const errors = collectErrors(page);
    await page.goto(`${world.base}/app/sign-in`);
    await page.getByRole('heading', { name: 'Bei SDCS anmelden' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    await shot(page, 'de-sign-in');
    await signInAs(page, world.tenant.manager.email, {
      email: 'E-Mail-Adresse',
      password: 'Passwort',
      submit: 'Anmelden',
    });
    await page.getByRole('heading', { name: 'Meine Berichterstattung' }).waitFor();
    await page.getByRole('button', { name: 'Abmelden' }).waitFor();
    await shot(page, 'de-home');
    await page.goto(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/3`);
    await page.getByRole('button', { name: 'Speichern' }).waitFor();
    // The month in German, from Intl.
    await page.getByRole('heading', { name: new RegExp(`März ${world.year}`) }).waitFor();
    expect(await page.getByText('Zeitraum', { exact: true }).count()).toBeGreaterThan(0);
    await shot(page, 'de-entry');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a person who chose French gets French in an English or German browser; the choice is on GET /me', async () => {
    const token = world.tenant.manager.token;
    const set = await api(world.t, 'PATCH', '/me', { token, body: { locale: 'fr' } });
    expect(set.status).toBe(200);
    for (const locale of ['en-US', 'de-DE']) {
      const context = await browser!.newContext({ locale, timezoneId: 'UTC' });
      const page = await context.newPage();
      const errors = collectErrors(page);
      const words =
        locale === 'en-US'
          ? { email: 'E-mail address', password: 'Password', submit: 'Sign in' }
          : { email: 'E-Mail-Adresse', password: 'Passwort', submit: 'Anmelden' };
      await signInAs(page, world.tenant.manager.email, words);
      await page.getByRole('heading', { name: 'Mes déclarations' }).waitFor();
      expect(await page.locator('html').getAttribute('lang')).toBe('fr');
      expect(await page.getByLabel('Langue').inputValue()).toBe('fr');
      await shot(page, `fr-home-${locale}`);
      await page.goto(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/3`);
      await page.getByRole('button', { name: 'Enregistrer' }).waitFor();
      await shot(page, `fr-entry-${locale}`);
      expect(errors).toEqual([]);
      await context.close();
    }
  }, 90_000);

  it('choosing a language in the header stores it on the account; every language passes axe', async () => {
    const context = await browser!.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    const page = await context.newPage();
    const errors = collectErrors(page);
    await signInAs(page, world.tenant.manager.email, {
      email: 'E-mail address',
      password: 'Password',
      submit: 'Sign in',
    });
    // Signed in (the header's navigation is there, in whatever language) before choosing.
    await page.locator('header nav').waitFor();
    const headings = {
      es: 'Mis informes',
      pl: 'Moja sprawozdawczość',
      de: 'Meine Berichterstattung',
      en: 'My reporting',
    };
    for (const [tag, heading] of Object.entries(headings)) {
      await page.locator('#language-choice').selectOption(tag);
      await page.getByRole('heading', { name: heading }).waitFor();
      await shot(page, `${tag}-home-chosen`);
      const me = await api(world.t, 'GET', '/me', { token: world.tenant.manager.token });
      expect(me.body.user.locale).toBe(tag);
    }
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('a language chosen while the sign-in is on its way: the person lands signed in, in that language', async () => {
    await api(world.t, 'PATCH', '/me', { token: world.tenant.manager.token, body: { locale: null } });
    const context = await browser!.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    const page = await context.newPage();
    const errors = collectErrors(page);
    // The sign-in's answer is held back until the language has been chosen.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked: () => void = () => {};
    const askedFor = new Promise<void>((resolve) => {
      asked = resolve;
    });
    await page.route('**/auth/login', async (route) => {
      asked();
      await held;
      await route.continue();
    });
    await signInAs(page, world.tenant.manager.email, {
      email: 'E-mail address',
      password: 'Password',
      submit: 'Sign in',
    });
    await askedFor;
    await page.locator('#language-choice').selectOption('de');
    await page.getByRole('heading', { name: 'Bei SDCS anmelden' }).waitFor();
    // The new (German) form shows the sign-in as under way, with the address typed.
    expect(await page.getByRole('button', { name: 'Anmelden' }).isDisabled()).toBe(true);
    expect(await page.getByLabel('E-Mail-Adresse').inputValue()).toBe(world.tenant.manager.email);
    release();
    await page.getByRole('heading', { name: 'Meine Berichterstattung' }).waitFor();
    await page.getByRole('button', { name: 'Abmelden' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('the invitation page in a German browser stays German while its requests are on their way, and a language chosen meanwhile lands signed in', async () => {
    const email = `jan-${Date.now()}@acme.example`;
    const invited = await api(world.t, 'POST', '/organizations/current/invitations', {
      token: world.tenant.owner.token,
      body: { email, assignedSiteIds: [world.site], role: 'COLLECTOR' },
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    const mail = (await world.outbox()).find((m) => m.to === email)!;
    const link = /(http\S+\/app\/accept-invitation\?token=\S+)/.exec(mail.text)?.[1];
    expect(link, mail.text).toBeDefined();

    const context = await browser!.newContext({ locale: 'de-DE', timezoneId: 'UTC' });
    const page = await context.newPage();
    const errors = collectErrors(page);
    // Every text the page shows, at every change of it, from the first drawing on.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as any).__seen = seen;
      new MutationObserver(() => {
        if (document.body) seen.push(document.body.innerText);
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    const describe = gate();
    const accept = gate();
    await page.route('**/invitations/describe', async (route) => {
      describe.reached();
      await describe.opened;
      await route.continue();
    });
    await page.route('**/invitations/accept', async (route) => {
      accept.reached();
      await accept.opened;
      await route.continue();
    });
    await page.goto(link!);
    await describe.hit;
    await page.getByText('Ihre Einladung').waitFor();
    describe.open();
    await page.getByRole('heading', { name: 'Acme Industries auf SDCS beitreten' }).waitFor();
    await page.getByLabel('Ihr Name').fill('Jan Kowalski');
    await page.getByLabel('Passwort').fill(PASSWORD);
    await page.getByRole('button', { name: 'Annehmen und weiter' }).click();
    await accept.hit;
    // The acceptance on its way: the page stays German, the button shows it is under way.
    expect(await page.getByRole('button', { name: 'Annehmen und weiter' }).isDisabled()).toBe(true);
    expect(ENGLISH_ONLY).toContain('Accept and continue');
    const seen: string[] = await page.evaluate(() => (window as any).__seen);
    expect(seen.length).toBeGreaterThan(0);
    const english = seen.flatMap((text) => ENGLISH_ONLY.filter((sentence) => text.includes(sentence)));
    expect([...new Set(english)]).toEqual([]);

    // A language chosen while it is on its way: the redrawn page waits for it, and the person
    // lands signed in, in the language chosen.
    await page.locator('#language-choice').selectOption('pl');
    await page.getByRole('button', { name: /Zaakceptuj/ }).waitFor();
    expect(await page.getByRole('button', { name: /Zaakceptuj/ }).isDisabled()).toBe(true);
    expect(await page.getByLabel('Twoje imię i nazwisko').inputValue()).toBe('Jan Kowalski');
    accept.open();
    await page.getByRole('heading', { name: 'Moja sprawozdawczość' }).waitFor({ timeout: 10_000 });
    expect(page.url()).toBe(`${world.base}/app`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the invitation e-mail is in the language the inviter set; the page follows the browser, the account then that language', async () => {
    const email = `ines-${Date.now()}@acme.example`;
    const invited = await api(world.t, 'POST', '/organizations/current/invitations', {
      token: world.tenant.owner.token,
      body: { email, assignedSiteIds: [world.site], role: 'COLLECTOR', locale: 'fr' },
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    const mail = (await world.outbox()).find((m) => m.to === email)!;
    expect(mail.subject).toBe('Invitation à rejoindre Acme Industries sur SDCS');
    const link = /(http\S+\/app\/accept-invitation\?token=\S+)/.exec(mail.text)?.[1];
    expect(link, mail.text).toBeDefined();
    const context = await browser!.newContext({ locale: 'de-DE', timezoneId: 'UTC' });
    const page = await context.newPage();
    const errors = collectErrors(page);
    await page.goto(link!);
    await page.getByRole('heading', { name: 'Acme Industries auf SDCS beitreten' }).waitFor();
    await page.getByLabel('Ihr Name').fill('Inès Roux');
    await page.getByLabel('Passwort').fill(PASSWORD);
    await page.getByRole('button', { name: 'Annehmen und weiter' }).click();
    await page.getByRole('heading', { name: 'Mes déclarations' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    expect(errors).toEqual([]);
    await context.close();
  });
});
