import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers/app.ts';
import { axeViolations, collectErrors, hasChromium, launchChromium, NO_CHROMIUM } from './helpers/browser.ts';
import { assignSites, createForm } from './helpers/factories.ts';
import { createWebAppWorld, setPassword, signIn, type WebAppWorld } from './helpers/web-app-world.ts';

// Issue 42, items 4, 5 and 7 (home): the review screen opens on what awaits review, oldest first,
// and shows each value as a reviewer must check it (the file's link, activity rows with units,
// option labels, dates in the reader's words); a filtered set is approved at once; a rejection
// with its comment reaches the collector's home and their mailbox. Screenshots go to
// SDCS_SCREENSHOTS (default /tmp/sdcs-review-shots), after axe finds no violation.

const OUT = process.env['SDCS_SCREENSHOTS'] || '/tmp/sdcs-review-shots';
const DESKTOP = { width: 1280, height: 900 };
const PASSWORD = 'correct horse battery';
const INVOICE = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

let world: WebAppWorld;
let browser: Browser | undefined;
let checks: { id: string };
let water: { id: string };
const thisYear = new Date().getUTCFullYear();

/** Stores values as the collector (one request: one recorded time). */
async function submit(formId: string, year: number, values: unknown[]) {
  const res = await api(world.t, 'POST', '/form-submissions', {
    token: world.tenant.collector.token,
    body: { formId, siteId: world.site, year, values },
  });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.values as { formElementSubmissionId: string; elementKey: string }[];
}

/** Uploads the invoice through the presigned POST, as the app does; answers its media id. */
async function uploadInvoice(): Promise<string> {
  const presigned = await api(world.t, 'POST', '/media/presigned-url', {
    token: world.tenant.collector.token,
    body: {
      fileName: 'invoice-march.pdf',
      fileSize: INVOICE.length,
      contentType: 'application/pdf',
      entityType: 'FormElementSubmission',
      entityId: 'review-test',
      fieldName: 'invoice',
    },
  });
  expect(presigned.status, JSON.stringify(presigned.body)).toBe(200);
  const form = new FormData();
  for (const [k, v] of Object.entries(presigned.body.fields as Record<string, string>)) form.append(k, v);
  form.append('file', new Blob([INVOICE], { type: 'application/pdf' }), 'invoice-march.pdf');
  const uploaded = await fetch(presigned.body.url, { method: 'POST', body: form });
  expect(uploaded.status).toBeLessThan(300);
  return presigned.body.mediaId;
}

beforeAll(async () => {
  if (!hasChromium) return;
  mkdirSync(OUT, { recursive: true });
  world = await createWebAppWorld();
  const { t, tenant, site, year } = world;
  await setPassword(t, tenant.manager.userId, PASSWORD);
  await setPassword(t, tenant.collector.userId, PASSWORD);
  await assignSites(t, tenant.organizationId, tenant.collector.userId, [site]);
  // The fuel activities are calculated in kgCO2e.
  await t.database.system((tx) =>
    tx
      .updateTable('activity_definitions')
      .set({ unit_id: world.units['kgCO2e']! })
      .where('organization_id', '=', tenant.organizationId)
      .execute(),
  );
  checks = await createForm(t, tenant, {
    name: 'Site checks',
    periodType: 'MONTHLY',
    elements: [
      {
        key: 'supply',
        label: 'Power supply',
        type: 'SELECT',
        options: [
          { label: 'Grid power', value: 'grid' },
          { label: 'Solar panels', value: 'solar' },
        ],
      },
      { key: 'inspected', label: 'Inspection date', type: 'DATE' },
    ],
  });
  water = await createForm(t, tenant, {
    name: 'Water',
    elements: [{ key: 'water', label: 'Water used', type: 'NUMBER' }],
  });
  for (const [id, years] of [
    [checks.id, [year]],
    [water.id, [thisYear]],
  ] as const) {
    const res = await api(t, 'PUT', '/form-sites', {
      token: tenant.owner.token,
      body: { formId: id, siteIds: [site], years },
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  }
  // Recorded in this order: March energy (with the invoice and two fuel purchases), the site
  // checks, then April's electricity.
  const invoice = await uploadInvoice();
  await submit(world.form.id, year, [
    { elementKey: 'electricity', periodUnit: 3, value: 1500 },
    {
      elementKey: 'fuel',
      periodUnit: 3,
      value: [
        { fuel: 'diesel', litres: 100 },
        { fuel: 'petrol', litres: 50 },
      ],
    },
    { elementKey: 'invoice', periodUnit: 3, value: invoice },
  ]);
  await submit(checks.id, year, [
    { elementKey: 'supply', periodUnit: 3, value: 'grid' },
    { elementKey: 'inspected', periodUnit: 3, value: `${year}-03-14` },
  ]);
  await submit(world.form.id, year, [{ elementKey: 'electricity', periodUnit: 4, value: 980 }]);
  // January is locked: closed, not overdue.
  const lock = await api(t, 'POST', '/form-locks', {
    token: tenant.owner.token,
    body: { formId: world.form.id, year, periodUnit: 1 },
  });
  if (lock.status !== 200) throw new Error(JSON.stringify(lock.body));
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
}, 120_000);

async function newPage(locale = 'en-US', viewport = DESKTOP) {
  const context = await browser!.newContext({ locale, timezoneId: 'UTC', viewport });
  const page = await context.newPage();
  return { context, page, errors: collectErrors(page) };
}

/** Checks the screen with axe-core (WCAG 2.1 A and AA), then saves a full-page screenshot. */
async function shot(page: Page, name: string) {
  const violations = await axeViolations(page);
  await page.screenshot({ path: `${OUT}/${name}.png`, fullPage: true });
  expect(violations, name).toEqual([]);
}

/** The element labels of the review table, top to bottom. */
const shownElements = (page: Page) =>
  page.locator('.review-table tbody tr td[data-label="Element"]').allTextContents();

describe.skipIf(!hasChromium)(
  `review and the collector’s home (${hasChromium ? 'Chromium' : NO_CHROMIUM})`,
  () => {
    it('opens on what awaits review, oldest first, showing the file, the activities, labels and dates', async () => {
      const { context, page, errors } = await newPage();
      await signIn(page, world.base, world.tenant.manager.email, PASSWORD);
      await page.getByRole('link', { name: 'Review' }).click();
      await page.getByRole('heading', { name: 'Awaiting review (6)' }).waitFor();
      const elements = await shownElements(page);
      // March energy (one request: any order among its three), then the site checks, then April.
      expect(elements.slice(0, 3).sort()).toEqual(['Electricity used', 'Energy invoice', 'Fuel purchases']);
      expect(elements.slice(3, 5).sort()).toEqual(['Inspection date', 'Power supply']);
      expect(elements[5]).toBe('Electricity used');
      const row = (element: string, period = 'March') =>
        page.locator('.review-table tbody tr', { hasText: element }).filter({ hasText: period });
      expect(await row('Electricity used').locator('td[data-label="Value"]').textContent()).toBe('1,500 kWh');
      expect(await row('Power supply').locator('td[data-label="Value"]').textContent()).toBe('Grid power');
      expect(await row('Inspection date').locator('td[data-label="Value"]').textContent()).toBe(
        `Mar 14, ${world.year}`,
      );

      // The file: its name and size, and a link that downloads its bytes.
      const file = row('Energy invoice').locator('td[data-label="Value"]');
      await file.getByRole('link', { name: 'invoice-march.pdf' }).waitFor();
      expect(await file.textContent()).toContain(`(${INVOICE.length} B)`);
      const href = await file.getByRole('link', { name: 'invoice-march.pdf' }).getAttribute('href');
      const downloaded = Buffer.from(await (await fetch(href!)).arrayBuffer());
      expect(downloaded.equals(INVOICE)).toBe(true);

      // The activities expand to their rows: inputs with the option's label, calculated values
      // with their unit and the total (100 L × 2.68 = 268; 50 L × 2.31 = 115.5; 383.5).
      const fuel = row('Fuel purchases');
      await fuel.getByRole('button', { name: /2 activities/ }).click();
      const table = fuel.locator('table.activity-rows');
      await table.waitFor();
      const rows = await table.locator('tbody tr').allTextContents();
      expect(rows).toEqual(['Diesel100268 kgCO2e', 'Petrol50115.5 kgCO2e']);
      expect(await table.locator('tfoot').textContent()).toBe('Total383.5 kgCO2e');
      // Actions match the status: an entered value can be approved or rejected.
      expect(await fuel.getByRole('button', { name: /^Approve / }).count()).toBe(1);
      await shot(page, 'review-queue-desktop');
      expect(errors).toEqual([]);
      await context.close();
    });

    it('speaks German and reads numbers and dates in the reader’s locale (de-DE)', async () => {
      const { context, page } = await newPage('de-DE');
      await signIn(page, world.base, world.tenant.manager.email, PASSWORD);
      await page.goto(`${world.base}/app/review`);
      await page.getByRole('heading', { name: 'Zu prüfen (6)' }).waitFor();
      await page.getByRole('button', { name: /^Auswahl freigeben \(0\)$/ }).waitFor();
      await page.getByRole('button', { name: /^2 Aktivitäten von / }).waitFor();
      const value = (element: string) =>
        page
          .locator('.review-table tbody tr', { hasText: element })
          .filter({ hasText: 'März' })
          .locator('td[data-label="Wert"]')
          .textContent();
      expect(await value('Electricity used')).toBe('1.500 kWh');
      expect(await value('Inspection date')).toBe(`14.03.${world.year}`);
      await shot(page, 'review-queue-de');
      await context.close();
    });

    it('speaks Polish, its plurals by the rules of Polish (pl-PL)', async () => {
      const { context, page, errors } = await newPage('pl-PL');
      await signIn(page, world.base, world.tenant.manager.email, PASSWORD);
      await page.goto(`${world.base}/app/review`);
      await page.getByRole('heading', { name: 'Do weryfikacji (6)' }).waitFor();
      await page.getByRole('button', { name: /^2 aktywności – / }).click();
      await page.locator('table.activity-rows tfoot').getByText('Suma').waitFor();
      await page.getByRole('columnheader', { name: 'Wprowadził(a)' }).waitFor();
      await shot(page, 'review-queue-pl');
      expect(errors).toEqual([]);
      await context.close();
    });

    it('shows each value as a labelled card on a phone, activities expanded', async () => {
      const { context, page, errors } = await newPage('en-US', { width: 360, height: 740 });
      await signIn(page, world.base, world.tenant.manager.email, PASSWORD);
      await page.goto(`${world.base}/app/review`);
      await page.getByRole('heading', { name: 'Awaiting review (6)' }).waitFor();
      await page.getByRole('button', { name: /2 activities/ }).click();
      await page.locator('table.activity-rows tfoot').waitFor();
      await shot(page, 'review-queue-phone');
      expect(errors).toEqual([]);
      await context.close();
    });

    it('approves everything a filter shows at once, and approved values offer no Approve', async () => {
      const { context, page, errors } = await newPage();
      await signIn(page, world.base, world.tenant.manager.email, PASSWORD);
      await page.goto(`${world.base}/app/review`);
      await page.getByLabel('Form').selectOption({ label: 'Site checks' });
      await page.getByRole('heading', { name: 'Awaiting review (2)' }).waitFor();
      await page.getByRole('button', { name: 'Approve all 2 shown by the filters…' }).click();
      await page.getByRole('button', { name: 'Approve 2 values' }).click();
      await page.getByText('2 values approved.').waitFor();
      await page.getByText('Nothing awaits review with these filters.').waitFor();
      await page.getByLabel('Status').selectOption({ label: 'Approved' });
      await page.getByRole('heading', { name: 'Approved values (2)' }).waitFor();
      expect(await page.getByRole('button', { name: /^Approve Power supply/ }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Reject Power supply/ }).count()).toBe(1);
      const stored = await api(world.t, 'GET', `/form-submissions/values?formId=${checks.id}`, {
        token: world.tenant.owner.token,
      });
      expect(stored.body.items.map((i: { status: string }) => i.status)).toEqual(['APPROVED', 'APPROVED']);
      expect(errors).toEqual([]);
      await context.close();
    });

    it('a rejection with its comment reaches the collector’s home and mailbox; closed and open periods read so', async () => {
      const manager = await newPage();
      await signIn(manager.page, world.base, world.tenant.manager.email, PASSWORD);
      await manager.page.goto(`${world.base}/app/review`);
      await manager.page.getByRole('heading', { name: 'Awaiting review (4)' }).waitFor();
      const april = `Electricity used at ${world.siteName}, April ${world.year}`;
      // Rejecting asks for the comment first.
      await manager.page.getByRole('button', { name: `Reject ${april}` }).click();
      await manager.page.getByText('Write a comment saying what is wrong before rejecting').waitFor();
      expect(await manager.page.evaluate(() => document.activeElement?.id)).toBe('review-comment');
      await manager.page
        .getByLabel('Comment for the collector (required to reject)')
        .fill('April is 980 kWh on the meter but 890 kWh on the invoice');
      await manager.page.getByRole('button', { name: `Reject ${april}` }).click();
      await manager.page.getByText('1 value rejected.').waitFor();
      await manager.page.getByRole('heading', { name: 'Awaiting review (3)' }).waitFor();
      await manager.context.close();

      const mails = (await world.outbox()).filter((m) => m.to === world.tenant.collector.email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toBe(`Please correct: Energy and fuel, Lyon plant, April ${world.year}`);
      expect(mails[0]!.text).toContain('Comment: April is 980 kWh on the meter but 890 kWh on the invoice');
      expect(mails[0]!.text).toContain('- Electricity used (entered: 980)');
      expect(mails[0]!.text).toContain(
        `${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/4`,
      );

      const { context, page, errors } = await newPage();
      await signIn(page, world.base, world.tenant.collector.email, PASSWORD);
      await page.goto(`${world.base}/app?year=${world.year}`);
      const corrections = page.locator('section', {
        has: page.getByRole('heading', { name: 'Needs correction (1)' }),
      });
      await corrections.waitFor();
      const text = await corrections.textContent();
      expect(text).toContain(`Energy and fuel · Lyon plant · April ${world.year}`);
      expect(text).toContain('1 value rejected');
      expect(text).toContain('April is 980 kWh on the meter but 890 kWh on the invoice');
      const energy = page.locator('section.card', {
        has: page.getByRole('heading', { name: 'Energy and fuel' }),
      });
      await energy
        .getByRole('link', { name: `Apr ${world.year} Needs correction 1 value rejected` })
        .waitFor();
      // The locked January is closed, neither missing nor late, and not in the overdue list.
      await energy.getByRole('link', { name: `Jan ${world.year} Closed` }).waitFor();
      const overdue = await page.locator('#overdue-title + ul').textContent();
      expect(overdue).not.toContain(`January ${world.year}`);
      await shot(page, 'home-needs-correction-desktop');

      // This year's running month is open, not missing.
      await page.goto(`${world.base}/app?year=${thisYear}&form=${water.id}`);
      const now = new Date();
      const month = now.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
      const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0));
      const lastDay = last.toLocaleString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
      const current = page.getByRole('link', { name: `${month} ${thisYear} Open until ${lastDay}` });
      await current.waitFor();
      expect(await current.locator('xpath=..').getAttribute('class')).toContain('tone-open');
      await shot(page, 'home-open-period-desktop');
      expect(errors).toEqual([]);
      await context.close();
    });
  },
);
