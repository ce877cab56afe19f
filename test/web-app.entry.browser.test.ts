import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers/app.ts';
import { axeViolations, collectErrors, hasChromium, launchChromium, NO_CHROMIUM } from './helpers/browser.ts';
import { activateForm, assignSites, createSite } from './helpers/factories.ts';
import { createWebAppWorld, setPassword, signIn, type WebAppWorld } from './helpers/web-app-world.ts';

// The entry screen in a real browser with the browser's locale set: numbers read as written in
// that locale or refused, drafts that survive a reload and an ended session, the element's rules
// on blur and the service's outlier check. Screenshots go to test-output/ (web-app-entry-*.png), or
// to the folder SCREENSHOTS names.

const OUT = process.env.SCREENSHOTS || 'test-output';
const DESKTOP = { width: 1280, height: 900 };
const PASSWORD = 'correct horse battery';
const LABEL = 'Electricity used (kilowatt-hour)';

let world: WebAppWorld;
let browser: Browser | undefined;
/** The second site, made by the test of rejected values and the links to other sites. */
let zurichId = '';

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

interface Opened {
  context: BrowserContext;
  page: Page;
  errors: string[];
  /** The bodies of every POST the page sent to /form-submissions (and its check). */
  posts: { url: string; body: any }[];
}

async function open(
  locale: string,
  as: { email: string; viewport?: { width: number; height: number } } = {
    email: world.tenant.manager.email,
  },
): Promise<Opened> {
  const context = await browser!.newContext({
    locale,
    timezoneId: 'UTC',
    viewport: as.viewport ?? DESKTOP,
  });
  const page = await context.newPage();
  const posts: Opened['posts'] = [];
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && request.url().includes('/form-submissions')) {
      posts.push({ url: request.url(), body: request.postDataJSON() });
    }
  });
  // The unsaved-changes question on reload is answered "leave" (the draft is kept).
  page.on('dialog', (dialog) => void dialog.accept());
  await signIn(page, world.base, as.email, PASSWORD);
  return { context, page, errors: collectErrors(page), posts };
}

const enter = (page: Page, periodUnit: number, formId = world.form.id) =>
  page.goto(`${world.base}/app/enter/${formId}/${world.site}/${world.year}/${periodUnit}`);

/** A full-page screenshot after axe-core's WCAG 2.1 A/AA rules found nothing. */
async function shot(page: Page, name: string) {
  const violations = await axeViolations(page);
  await page.screenshot({ path: `${OUT}/web-app-entry-${name}.png`, fullPage: true });
  expect(violations, name).toEqual([]);
}

/** The stored electricity of a period, as the API answers it. */
async function storedElectricity(periodUnit: number, formId = world.form.id, key = 'electricity') {
  const token = world.tenant.owner.token;
  const form = await api(world.t, 'GET', `/forms/${formId}`, { token });
  const element = form.body.elements.find((e: { key: string }) => e.key === key);
  const res = await api(
    world.t,
    'GET',
    `/form-submissions?formId=${formId}&siteId=${world.site}&year=${world.year}`,
    { token },
  );
  return (res.body.items[0]?.values ?? []).find(
    (v: any) => v.elementId === element.id && v.periodUnit === periodUnit && v.value !== null,
  );
}

describe.skipIf(!hasChromium)(`the entry screen (${hasChromium ? 'Chromium' : NO_CHROMIUM})`, () => {
  it('de-DE: “1,5” is one and a half, shown before saving and stored as 1.5', async () => {
    const { context, page, errors } = await open('de-DE');
    await enter(page, 1);
    await page.getByLabel(LABEL).fill('1,5');
    // A German browser gets the app in German (unit names are the organization's, as stored).
    await page.getByText('Wird gespeichert als 1,5 kilowatt-hour').waitFor();
    await page.getByLabel(LABEL).blur();
    await shot(page, 'de-DE');
    await page.getByRole('button', { name: 'Speichern' }).click();
    await page.getByText(/^Gespeichert um/).waitFor();
    expect((await storedElectricity(1)).value).toBe(1.5);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('fr-FR: “12 500,5” (space or narrow no-break space) is stored as 12500.5', async () => {
    const { context, page, errors } = await open('fr-FR');
    await enter(page, 2);
    await page.getByLabel(LABEL).fill('12 500,5');
    await page.getByText('Sera enregistré comme 12\u202f500,5 kilowatt-hour').waitFor();
    // Another unit: what is typed in megawatt-hours, and what the service stores in kilowatt-hours.
    await page.getByLabel('Unité', { exact: true }).selectOption({ label: 'megawatt-hour' });
    await page.getByLabel(LABEL).fill('12\u202f500,5');
    await page.locator('.will-store').filter({ hasText: '12\u202f500\u202f500 kilowatt-hour' }).waitFor();
    await page.getByLabel('Unité', { exact: true }).selectOption({ label: 'kilowatt-hour' });
    await shot(page, 'fr-FR');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await page.getByText(/^Enregistré à/).waitFor();
    expect((await storedElectricity(2)).value).toBe(12500.5);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('en-US: “1,5” is refused beside the field on blur and on save; nothing is sent', async () => {
    const { context, page, errors, posts } = await open('en-US');
    await enter(page, 3);
    const field = page.getByLabel(LABEL);
    await field.fill('1,5');
    await field.blur();
    const error = page.locator('[data-key="electricity"] .field-error');
    await error.waitFor();
    expect(await error.textContent()).toContain(
      '“1,5” is ambiguous: here “,” separates thousands, as in 1,234.5. For a decimal number, type 1.5.',
    );
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    // No "will be saved" line for a number that cannot be read.
    expect(await page.locator('.will-store').count()).toBe(0);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'Nothing was saved' }).waitFor();
    // Focus moves after the refusal is drawn (next animation frame).
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('el-electricity');
    await shot(page, 'en-US-refused');
    expect(posts).toEqual([]);
    expect(await storedElectricity(3)).toBeUndefined();
    // "1e309" (which JSON would send as null) is refused the same way.
    await field.fill('1e309');
    await field.blur();
    await page.getByText('without an exponent').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'Nothing was saved' }).waitFor();
    expect(posts).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a typed value survives a reload and an ended session, and is stored after signing in again', async () => {
    const { context, page, errors } = await open('en-GB');
    await enter(page, 4);
    await page.getByLabel(LABEL).fill('4,321.5');
    await page.getByLabel('Note for the reviewer').fill('Read from the meter on the 30th');
    // Kept as typed: after a reload, the two values are offered back.
    await page.waitForTimeout(600);
    await page.reload();
    const offer = page.locator('.draft-offer');
    await offer.waitFor();
    expect(await offer.textContent()).toMatch(/Restore 2 unsaved values from \d{2}:\d{2}\?/);
    await shot(page, 'restore-offer');
    await page.getByRole('button', { name: 'Restore' }).click();
    await expect(page.getByLabel(LABEL).inputValue()).resolves.toBe('4,321.5');
    await expect(page.getByLabel('Note for the reviewer').inputValue()).resolves.toBe(
      'Read from the meter on the 30th',
    );

    // The session ends on the service's side while the person types.
    await page.getByLabel(LABEL).fill('4,321.75');
    await page.waitForTimeout(600);
    await world.t.database.system((tx) =>
      tx
        .updateTable('access_tokens')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('user_id', '=', world.tenant.manager.userId)
        .execute(),
    );
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Your session ended: sign in again.').waitFor();
    expect(await storedElectricity(4)).toBeUndefined();
    // Signing in again leads back to the same period (the address never held a token) and its draft.
    expect(page.url()).toBe(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/4`);
    await page.getByLabel('E-mail address').fill(world.tenant.manager.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.draft-offer').waitFor();
    await page.getByRole('button', { name: 'Restore' }).click();
    await expect(page.getByLabel(LABEL).inputValue()).resolves.toBe('4,321.75');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved at/).waitFor();
    expect((await storedElectricity(4)).value).toBe(4321.75);
    // Stored: the draft is gone, nothing is offered after a reload.
    await page.waitForTimeout(600);
    await page.reload();
    await page.getByLabel(LABEL).waitFor();
    expect(await page.locator('.draft-offer').count()).toBe(0);
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  });

  it('a rejected value stands out with the reviewer’s comment; links lead to the other periods and sites', async () => {
    const org = world.tenant.organizationId;
    const zurich = await createSite(world.t, org, { name: 'Zürich office', code: 'ZRH' });
    zurichId = zurich;
    await assignSites(world.t, org, world.tenant.manager.userId, [zurich]);
    await activateForm(world.t, world.tenant, world.form.id, [world.site, zurich], [world.year]);
    const january = await storedElectricity(1);
    const reviewed = await api(
      world.t,
      'POST',
      `/form-submissions/values/${january.formElementSubmissionId}/review`,
      {
        token: world.tenant.owner.token,
        body: { status: 'REJECTED', comment: 'The January invoice says 1.6 MWh' },
      },
    );
    expect(reviewed.status, JSON.stringify(reviewed.body)).toBe(200);
    // The fuel purchases' calculation returns kilograms of CO2 equivalent: 100 L of diesel × 2.68 = 268.
    await world.t.database.system((tx) =>
      tx
        .updateTable('activity_definitions')
        .set({ unit_id: world.units['kgCO2e']! })
        .where('key', '=', 'fuel-purchase')
        .execute(),
    );
    const fuel = await api(world.t, 'POST', '/form-submissions', {
      token: world.tenant.owner.token,
      body: {
        formId: world.form.id,
        siteId: world.site,
        year: world.year,
        values: [{ elementKey: 'fuel', periodUnit: 1, value: [{ fuel: 'diesel', litres: 100 }] }],
      },
    });
    expect(fuel.status, JSON.stringify(fuel.body)).toBe(200);
    const { context, page, errors } = await open('en-US');
    await enter(page, 1);
    const calculated = page.locator('.type-activity .calculated').first();
    await calculated.waitFor();
    expect(await calculated.textContent()).toBe('Calculated value: 268 kilogram CO2 equivalent');
    const element = page.locator('[data-key="electricity"].rejected');
    await element.waitFor();
    expect(await element.locator('.review').textContent()).toContain('The January invoice says 1.6 MWh');
    expect(await element.locator('.review').textContent()).toContain('Correct this value and save again.');
    const nav = page.getByRole('navigation', { name: 'Other periods and sites' });
    // January: no earlier period of the year; Lyon plant comes before Zürich office.
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      `February ${world.year} →`,
      'Zürich office →',
    ]);
    await shot(page, 'rejected');
    await nav.getByRole('link', { name: 'Zürich office →' }).click();
    await page.getByRole('link', { name: '← Lyon plant' }).waitFor();
    expect(page.url()).toBe(`${world.base}/app/enter/${world.form.id}/${zurich}/${world.year}/1`);
    await page.getByRole('link', { name: `February ${world.year} →` }).click();
    await page.getByRole('heading', { name: `Energy and fuel: February ${world.year}` }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the period links cross the year’s end into a year the form is active on the site, and only there', async () => {
    const zurich = zurichId;
    // The year before is active on Lyon plant only.
    await activateForm(world.t, world.tenant, world.form.id, [world.site], [world.year - 1]);
    const { context, page, errors } = await open('en-US');
    await enter(page, 1);
    const nav = page.getByRole('navigation', { name: 'Other periods and sites' });
    await nav.getByRole('link', { name: `← December ${world.year - 1}` }).waitFor();
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      `← December ${world.year - 1}`,
      `February ${world.year} →`,
      'Zürich office →',
    ]);
    await nav.getByRole('link', { name: `← December ${world.year - 1}` }).click();
    await page.getByRole('heading', { name: `Energy and fuel: December ${world.year - 1}` }).waitFor();
    expect(page.url()).toBe(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year - 1}/12`);
    // December of the year before leads forward into January; nothing beyond it (not active).
    expect(
      await page
        .getByRole('navigation', { name: 'Other periods and sites' })
        .getByRole('link')
        .allTextContents(),
    ).toEqual([`← November ${world.year - 1}`, `January ${world.year} →`]);
    // Zürich office is not active the year before: its January has no earlier period.
    await page.goto(`${world.base}/app/enter/${world.form.id}/${zurich}/${world.year}/1`);
    await page.getByRole('link', { name: '← Lyon plant' }).waitFor();
    expect(
      await page
        .getByRole('navigation', { name: 'Other periods and sites' })
        .getByRole('link')
        .allTextContents(),
    ).toEqual([`February ${world.year} →`, '← Lyon plant']);
    // December of the year: the next year is not active, so no link past it.
    await enter(page, 12);
    await page.getByRole('link', { name: `← November ${world.year}` }).waitFor();
    expect(await page.getByText(`January ${world.year + 1}`).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a viewer, who may read but not report, gets no links to other sites', async () => {
    const zurich = zurichId;
    const viewer = world.tenant.viewer;
    await setPassword(world.t, viewer.userId, PASSWORD);
    await assignSites(world.t, world.tenant.organizationId, viewer.userId, [world.site, zurich]);
    const { context, page, errors } = await open('en-US', { email: viewer.email });
    await enter(page, 2);
    const nav = page.getByRole('navigation', { name: 'Other periods and sites' });
    await nav.getByRole('link', { name: `March ${world.year} →` }).waitFor();
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      `← January ${world.year}`,
      `March ${world.year} →`,
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  describe('the element’s rules and the service’s check', () => {
    let water = '';
    beforeAll(async () => {
      if (!hasChromium) return;
      const created = await api(world.t, 'POST', '/forms', {
        token: world.tenant.owner.token,
        body: {
          name: 'Water',
          periodType: 'MONTHLY',
          elements: [
            {
              key: 'water',
              label: 'Water drawn',
              type: 'NUMBER',
              unitId: world.units['m3'],
              minValue: 0,
              warnChangeFactor: 3,
            },
          ],
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      water = created.body.id;
      const activated = await api(world.t, 'PUT', '/form-sites', {
        token: world.tenant.owner.token,
        body: { formId: water, siteIds: [world.site], years: [world.year] },
      });
      expect(activated.status).toBe(200);
    });

    it('−5 below a minimum of 0 is refused on blur, in plain words; the API refuses it naming the field', async () => {
      const { context, page, posts } = await open('en-US');
      await enter(page, 1, water);
      const field = page.getByLabel('Water drawn (cubic metre)');
      await field.fill('-5');
      await page.getByText('Will be saved as -5 cubic metre').waitFor();
      await field.blur();
      const error = page.locator('[data-key="water"] .field-error');
      await error.waitFor();
      expect(await error.textContent()).toBe('Water drawn cannot be less than 0 (cubic metre). ');
      await shot(page, 'rule-refused');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('alert').filter({ hasText: 'Nothing was saved' }).waitFor();
      expect(posts).toEqual([]);
      // The service holds the same rule for every client.
      const refused = await api(world.t, 'POST', '/form-submissions', {
        token: world.tenant.owner.token,
        body: {
          formId: water,
          siteId: world.site,
          year: world.year,
          values: [{ elementKey: 'water', periodUnit: 1, value: -5 }],
        },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.issues.map((i: { path: string }) => i.path)).toEqual(['values.0.value']);
      expect(refused.body.issues[0].message).toContain('Water drawn');
      await context.close();
    });

    it('an outlier the check reports asks for a comment before saving, and the comment goes with the value', async () => {
      // The client's side alone: the service's answers are stood in for, the requests recorded.
      const { context, page, errors } = await open('en-US');
      const checks: any[] = [];
      const saves: any[] = [];
      const outlier = {
        type: 'outlier',
        path: 'values.0.value',
        message: 'Water drawn: 9,000 is more than 3 times the 40 of February at Lyon plant.',
      };
      await page.route('**/api/v1/form-submissions/check', (route) => {
        const body = route.request().postDataJSON();
        checks.push(body);
        const acknowledged = Boolean(body.values[0]?.comment);
        void route.fulfill({ json: { issues: [{ ...outlier, acknowledged }] } });
      });
      await page.route('**/api/v1/form-submissions', (route) => {
        if (route.request().method() !== 'POST') return void route.continue();
        saves.push(route.request().postDataJSON());
        void route.fulfill({ json: { issues: [{ ...outlier, acknowledged: true }] } });
      });
      await enter(page, 4, water);
      const field = page.getByLabel('Water drawn (cubic metre)');
      await field.fill('9000');
      await field.blur();
      const comment = page.getByLabel('Why is this value right? needed to save it');
      await comment.waitFor();
      expect(await page.locator('[data-key="water"] .outlier-message').textContent()).toContain(
        outlier.message,
      );
      expect(checks.at(-1).values).toEqual([{ elementKey: 'water', periodUnit: 4, value: 9000 }]);
      // Save without a comment: nothing is saved, the comment field is where the keyboard goes.
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('alert').filter({ hasText: 'One value is unusual' }).waitFor();
      expect(saves).toEqual([]);
      // The keyboard is moved on the next frame, after the alert is drawn.
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('el-water-comment');
      await shot(page, 'outlier-comment-client');
      await comment.fill('The cooling tower was refilled');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText(/^Saved at/).waitFor();
      expect(saves.map((s) => s.values)).toEqual([
        [{ elementKey: 'water', periodUnit: 4, value: 9000, comment: 'The cooling tower was refilled' }],
      ]);
      expect(errors).toEqual([]);
      await context.close();
    });

    it('a value far from the previous month asks for a comment, sent with the value', async () => {
      const before = await api(world.t, 'POST', '/form-submissions', {
        token: world.tenant.owner.token,
        body: {
          formId: water,
          siteId: world.site,
          year: world.year,
          values: [{ elementKey: 'water', periodUnit: 2, value: 40 }],
        },
      });
      expect(before.status, JSON.stringify(before.body)).toBe(200);
      const { context, page, errors, posts } = await open('en-US');
      await enter(page, 3, water);
      const field = page.getByLabel('Water drawn (cubic metre)');
      await field.fill('125,005');
      await field.blur();
      const comment = page.getByLabel('Why is this value right? needed to save it');
      await comment.waitFor();
      expect(await page.locator('[data-key="water"] .outlier-message').textContent()).toContain(
        'Water drawn',
      );
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('alert').filter({ hasText: 'unusual' }).waitFor();
      expect(posts.filter((p) => !p.url.endsWith('/check'))).toEqual([]);
      await shot(page, 'outlier-comment');
      await comment.fill('A new cooling tower was filled this month');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText(/^Saved at/).waitFor();
      const saved = posts.filter((p) => !p.url.endsWith('/check'));
      expect(saved).toHaveLength(1);
      expect(saved[0]!.body.values).toEqual([
        {
          elementKey: 'water',
          periodUnit: 3,
          value: 125005,
          comment: 'A new cooling tower was filled this month',
        },
      ]);
      const stored = await storedElectricity(3, water, 'water');
      expect(stored.value).toBe(125005);
      const history = await api(
        world.t,
        'GET',
        `/form-submissions/values/${stored.formElementSubmissionId}/history`,
        { token: world.tenant.owner.token },
      );
      expect(JSON.stringify(history.body)).toContain('A new cooling tower was filled this month');
      expect(errors).toEqual([]);
      await context.close();
    });
    it('de-DE: the outlier names the numbers in the person’s locale, the unit by its name and the month compared with', async () => {
      const april = await api(world.t, 'POST', '/form-submissions', {
        token: world.tenant.owner.token,
        body: {
          formId: water,
          siteId: world.site,
          year: world.year,
          values: [{ elementKey: 'water', periodUnit: 4, value: 40 }],
        },
      });
      expect(april.status, JSON.stringify(april.body)).toBe(200);
      const { context, page, errors } = await open('de-DE');
      await enter(page, 5, water);
      const field = page.getByLabel('Water drawn (cubic metre)');
      await field.fill('125005');
      await field.blur();
      const message = page.locator('[data-key="water"] .outlier-message');
      await message.waitFor();
      // 125005 / 40 = 3125 times April's value, more than the factor 3.
      expect((await message.textContent())?.trim()).toBe(
        `Water drawn ist 125.005 cubic metre gegenüber 40 cubic metre im April ${world.year}: mehr als das 3-Fache. Prüfen Sie den Wert oder begründen Sie ihn in einem Kommentar.`,
      );
      expect(await message.textContent()).not.toContain('m3');
      await shot(page, 'outlier-de-DE');
      expect(errors).toEqual([]);
      await context.close();
    });

    // Each browser gets the app in its language: the outlier, the rule and the offer in its words.
    const words = {
      'de-DE': {
        outlier: (n: string) => `ist ${n} cubic metre gegenüber 40 cubic metre im April`,
        rule: 'Water drawn darf nicht kleiner als 0 (cubic metre) sein.',
        restore: /^1 nicht gespeicherten Wert \(.+\) wiederherstellen\?/,
      },
      'fr-FR': {
        outlier: (n: string) => `vaut ${n} cubic metre contre 40 cubic metre en avril`,
        rule: 'Water drawn ne peut pas être inférieur à 0 (cubic metre).',
        restore: /^Restaurer 1 valeur non enregistrée \(.+\) \?/,
      },
      'pl-PL': {
        outlier: (n: string) => `Water drawn: ${n} cubic metre wobec 40 cubic metre w okresie kwiecień`,
        rule: 'Water drawn: wartość nie może być mniejsza niż 0 (cubic metre).',
        restore: /^Przywrócić 1 niezapisaną wartość \(.+\)\?/,
      },
      'en-US': {
        outlier: (n: string) => `is ${n} cubic metre against 40 cubic metre in April`,
        rule: 'Water drawn cannot be less than 0 (cubic metre).',
        restore: /Restore 1 unsaved value from /,
      },
    };
    for (const [locale, typed, shown] of [
      ['de-DE', '125005', '125.005'],
      ['fr-FR', '125005', '125\u202f005'],
      ['pl-PL', '125005', '125\u00a0005'],
      ['en-US', '125005', '125,005'],
    ] as const) {
      it(`${locale} on a phone: the outlier, a rule error and the restore offer read in plain words`, async () => {
        const { context, page, errors } = await open(locale, {
          email: world.tenant.manager.email,
          viewport: { width: 390, height: 844 },
        });
        await enter(page, 5, water);
        const field = page.getByLabel('Water drawn (cubic metre)');
        await field.fill(typed);
        await field.blur();
        const message = page.locator('[data-key="water"] .outlier-message');
        await message.waitFor();
        expect(await message.textContent()).toContain(`${words[locale].outlier(shown)} ${world.year}`);
        await shot(page, `phone-${locale}-outlier`);
        await field.fill('-5');
        await field.blur();
        const error = page.locator('[data-key="water"] .field-error');
        await error.waitFor();
        expect(await error.textContent()).toContain(words[locale].rule);
        await shot(page, `phone-${locale}-rule`);
        await field.fill(typed);
        await page.waitForTimeout(600);
        await page.reload();
        await page.locator('.draft-offer').waitFor();
        expect(await page.locator('.draft-offer strong').textContent()).toMatch(words[locale].restore);
        await shot(page, `phone-${locale}-restore`);
        expect(errors).toEqual([]);
        await context.close();
      });
    }
  });

  it('a draft outlives its closed tab: another tab of the browser, signed in anew, offers it', async () => {
    const { context, page } = await open('en-US');
    await enter(page, 6);
    await page.getByLabel(LABEL).fill('606');
    await page.waitForTimeout(600);
    await page.close();
    // A new tab has no session (it lives in the closed tab's sessionStorage): sign in again.
    const tab = await context.newPage();
    tab.on('dialog', (dialog) => void dialog.accept());
    await signIn(tab, world.base, world.tenant.manager.email, PASSWORD);
    await enter(tab, 6);
    await tab.getByText(/^Restore 1 unsaved value from /).waitFor();
    await tab.getByRole('button', { name: 'Discard them' }).click();
    await expect(tab.getByLabel(LABEL).inputValue()).resolves.toBe('');
    // Discarded: not offered again.
    await tab.waitForTimeout(600);
    await tab.reload();
    await tab.getByLabel(LABEL).waitFor();
    expect(await tab.locator('.draft-offer').count()).toBe(0);
    // A number stored meanwhile from elsewhere, as typed here but written otherwise, is not offered.
    await tab.getByLabel(LABEL).fill('6,060');
    await tab.waitForTimeout(600);
    const elsewhere = await api(world.t, 'POST', '/form-submissions', {
      token: world.tenant.owner.token,
      body: {
        formId: world.form.id,
        siteId: world.site,
        year: world.year,
        values: [{ elementKey: 'electricity', periodUnit: 6, value: 6060 }],
      },
    });
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
    await tab.reload();
    await expect(tab.getByLabel(LABEL).inputValue()).resolves.toBe('6060');
    expect(await tab.locator('.draft-offer').count()).toBe(0);
    await context.close();
  });

  it('when only part of a save is stored, only the rest stays as a draft', async () => {
    const { context, page } = await open('en-US');
    // The values are stored, then the no-activity marker fails (as a passing outage would).
    await page.route('**/activities/no-activity/mark', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ code: 'UNAVAILABLE', message: 'The service is busy: try again' }),
      }),
    );
    await enter(page, 7);
    await page.getByLabel(LABEL).fill('707');
    await page.getByLabel('No activity this period').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'The service is busy: try again' }).waitFor();
    expect((await storedElectricity(7)).value).toBe(707);
    await page.unroute('**/activities/no-activity/mark');
    await page.reload();
    await page.getByText(/^Restore 1 unsaved value from /).waitFor();
    await page.getByRole('button', { name: 'Restore' }).click();
    expect(await page.getByLabel('No activity this period').isChecked()).toBe(true);
    await expect(page.getByLabel(LABEL).inputValue()).resolves.toBe('707');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved at/).waitFor();
    await context.close();
  });

  it('leaving with unsaved changes asks first', async () => {
    const { context, page } = await open('en-US');
    const asked: string[] = [];
    page.removeAllListeners('dialog');
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await enter(page, 5);
    await page.getByLabel(LABEL).fill('12');
    await page.getByRole('link', { name: '← My reporting' }).click();
    expect(asked).toEqual([
      'Your unsaved changes are kept on this device as a draft, but not saved. Leave anyway?',
    ]);
    // Stayed: the value is still there.
    await expect(page.getByLabel(LABEL).inputValue()).resolves.toBe('12');
    await context.close();
  });
});
