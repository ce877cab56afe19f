import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers/app.ts';
import { axeViolations, collectErrors, hasChromium, launchChromium, NO_CHROMIUM } from './helpers/browser.ts';
import { assignSites } from './helpers/factories.ts';
import { createWebAppWorld, setPassword, signIn, type WebAppWorld } from './helpers/web-app-world.ts';

// The service's refusals in the person's language, beside the field (issue 47, decision 225): a
// German browser reads a limit the service enforces with a German number; a Polish person's value
// queued offline and refused by a lock made meanwhile reads the lock's reason in Polish, in the
// queue's notice and beside the field; a site taken meanwhile is said in Polish for each value.
// Screenshots go to test-output/ (web-app-issue-*.png), or to the folder SCREENSHOTS names.

const OUT = process.env.SCREENSHOTS || 'test-output';
const PASSWORD = 'correct horse battery';

let world: WebAppWorld;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  mkdirSync(OUT, { recursive: true });
  world = await createWebAppWorld();
  const { organizationId, manager, collector } = world.tenant;
  await setPassword(world.t, manager.userId, PASSWORD);
  await setPassword(world.t, collector.userId, PASSWORD);
  await assignSites(world.t, organizationId, collector.userId, [world.site]);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
}, 120_000);

async function shot(page: Page, name: string) {
  const violations = await axeViolations(page);
  await page.screenshot({ path: `${OUT}/web-app-issue-${name}.png`, fullPage: true });
  expect(violations, name).toEqual([]);
}

/** CSP refusals and the like; a request the offline browser could not make is expected. */
const unexpected = (errors: string[]) =>
  errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/.test(e));

const electricity = (page: Page) => page.locator('[data-key="electricity"] input').first();
const besideElectricity = (page: Page) => page.locator('[data-key="electricity"] .field-error');

/** The entry screen of a period, in a browser of `locale`, with the worker controlling it. */
async function openPeriod(locale: string, email: string, periodUnit: number) {
  const context: BrowserContext = await browser!.newContext({
    locale,
    timezoneId: 'UTC',
    viewport: { width: 1280, height: 900 },
    serviceWorkers: 'allow',
  });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await signIn(page, world.base, email, PASSWORD);
  await page.goto(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/${periodUnit}`);
  await electricity(page).waitFor();
  return { context, page, errors };
}

/** The stored value of the electricity in a period, as the API answers it (null: none). */
async function storedElectricity(periodUnit: number) {
  const element = world.form.elements.find((e) => e.key === 'electricity')!;
  const res = await api(
    world.t,
    'GET',
    `/form-submissions?formId=${world.form.id}&siteId=${world.site}&year=${world.year}`,
    { token: world.tenant.owner.token },
  );
  return (
    (res.body.items[0]?.values ?? []).find(
      (v: any) => v.elementId === element.id && v.periodUnit === periodUnit && v.value !== null,
    ) ?? null
  );
}

/** Replaces the form through the API with the electricity's maximum set to `max`. */
async function setElectricityMaximum(max: number | null) {
  const token = world.tenant.owner.token;
  const form = (await api(world.t, 'GET', `/forms/${world.form.id}`, { token })).body;
  const present = (o: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(o).filter(
        ([k, v]) => v !== null && k !== 'order' && (k !== 'aggregation' || o['type'] === 'NUMBER'),
      ),
    );
  const body = {
    name: form.name,
    periodType: form.periodType,
    dueDays: form.dueDays,
    metadata: form.metadata,
    elements: form.elements.map((e: any) => ({
      ...present(e),
      ...(e.key === 'electricity' ? { maxValue: max } : {}),
    })),
  };
  const res = await api(world.t, 'PUT', `/forms/${world.form.id}`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe.skipIf(!hasChromium)(
  `refusals in the person's language (${hasChromium ? 'Chromium' : NO_CHROMIUM})`,
  () => {
    it('de-DE: a maximum set after the form loaded, refused by the service, in German with a German number', async () => {
      const { context, page, errors } = await openPeriod('de-DE', world.tenant.manager.email, 2);
      // The screen knows no limit; the service does from now on.
      await setElectricityMaximum(1200.5);
      try {
        await electricity(page).fill('1500');
        await page.getByRole('button', { name: 'Speichern' }).click();
        const beside = besideElectricity(page);
        await beside.waitFor();
        expect((await beside.textContent())?.trim()).toBe(
          'Electricity used darf nicht größer als 1.200,5 (kilowatt-hour) sein.',
        );
        expect(await storedElectricity(2)).toBeNull();
        await shot(page, 'de-above-maximum');
        expect(unexpected(errors)).toEqual([]);
      } finally {
        await setElectricityMaximum(null);
        await context.close();
      }
    });

    it('pl: a value queued offline and refused by a lock made meanwhile reads the lock’s reason in Polish', async () => {
      const token = world.tenant.collector.token;
      expect((await api(world.t, 'PATCH', '/me', { token, body: { locale: 'pl' } })).status).toBe(200);
      // An English browser: the person's choice wins.
      const { context, page, errors } = await openPeriod('en-GB', world.tenant.collector.email, 4);
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, {
        timeout: 20_000,
      });
      await context.setOffline(true);
      await electricity(page).fill('77');
      await page.getByRole('button', { name: 'Zapisz' }).click();
      await page.getByText('1 okres czeka na wysłanie').waitFor();
      const locked = await api(world.t, 'POST', '/form-locks', {
        token: world.tenant.owner.token,
        body: { formId: world.form.id, year: world.year, periodUnit: 4 },
      });
      expect(locked.status, JSON.stringify(locked.body)).toBe(200);

      await context.setOffline(false);
      await page.getByText('1 okres wymaga Twojej uwagi').waitFor();
      const lines = await page.locator('.queued.refused li').allTextContents();
      const polish = /^Electricity used za \S+ \d{4} jest zablokowane: raportowanie zostało zamknięte\.$/;
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(polish);
      expect(lines[0]).toContain(String(world.year));
      // Beside the field, per value, in Polish too.
      expect((await besideElectricity(page).textContent())?.trim()).toMatch(polish);
      expect(await storedElectricity(4)).toBeNull();
      await shot(page, 'pl-refused-by-lock');
      expect(unexpected(errors)).toEqual([]);
      await context.close();
    });

    it('pl: a site taken meanwhile is said in Polish beside each queued value (the refusal’s code kept)', async () => {
      const { organizationId, collector } = world.tenant;
      const chose = await api(world.t, 'PATCH', '/me', { token: collector.token, body: { locale: 'pl' } });
      expect(chose.status).toBe(200);
      const { context, page, errors } = await openPeriod('en-GB', collector.email, 5);
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, {
        timeout: 20_000,
      });
      await context.setOffline(true);
      await electricity(page).fill('42');
      await page.locator('[data-key="note"] textarea, [data-key="note"] input').first().fill('Szacunek');
      await page.getByRole('button', { name: 'Zapisz' }).click();
      await page.getByText('1 okres czeka na wysłanie').waitFor();
      await world.t.database.tenant(organizationId, (tx) =>
        tx.deleteFrom('membership_sites').where('user_id', '=', collector.userId).execute(),
      );
      try {
        await context.setOffline(false);
        await page.getByText('1 okres wymaga Twojej uwagi').waitFor();
        const lines = await page.locator('.queued.refused li').allTextContents();
        expect(lines).toEqual([
          `Electricity used: Nie możesz raportować dla lokalizacji ${world.siteName}.`,
          `Note for the reviewer: Nie możesz raportować dla lokalizacji ${world.siteName}.`,
        ]);
        expect(unexpected(errors)).toEqual([]);
      } finally {
        await assignSites(world.t, organizationId, collector.userId, [world.site]);
        await context.close();
      }
    });
  },
);
