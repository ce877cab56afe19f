import { mkdirSync } from 'node:fs';
import ExcelJS from 'exceljs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers/app.ts';
import { axeViolations, collectErrors, hasChromium, launchChromium, NO_CHROMIUM } from './helpers/browser.ts';
import { addMember, assignSites, createSite, createTenant } from './helpers/factories.ts';
import {
  createWebAppWorld,
  FUEL_FACTORS,
  setPassword,
  signIn,
  type WebAppWorld,
} from './helpers/web-app-world.ts';

// The reporting web app /app in a real browser (Debian's Chromium through playwright-core),
// against the real service listening on a loopback port: the collector's month from the
// invitation e-mail to a complete period, errors beside their fields, review and locks.
// Screenshots (desktop and phone) go to test-output/.

const OUT = 'test-output';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 360, height: 740 };
const PASSWORD = 'correct horse battery';

let world: WebAppWorld;
let browser: Browser | undefined;
let collectorEmail = '';
let collectorId = '';

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

async function newPage(
  viewport = DESKTOP,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser!.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport });
  const page = await context.newPage();
  return { context, page, errors: collectErrors(page) };
}

/**
 * Saves a full-page screenshot, after checking the screen with axe-core (WCAG 2.1 A and AA rules,
 * contrast included): the violations, as "rule: elements", must be none.
 */
async function shot(page: Page, name: string) {
  const violations = await axeViolations(page);
  await page.screenshot({ path: `${OUT}/web-app-${name}.png`, fullPage: true });
  expect(violations, name).toEqual([]);
}

/** The completeness status of (site, period) as the API answers it. */
async function periodStatus(token: string, periodUnit: number): Promise<string> {
  const res = await api(world.t, 'GET', `/completeness?formId=${world.form.id}&year=${world.year}`, {
    token,
  });
  return res.body.items[0].periods.find((p: { periodUnit: number }) => p.periodUnit === periodUnit).status;
}

/** The stored values of the world's form, site and year, by element key and period. */
async function storedValues(token: string) {
  const res = await api(
    world.t,
    'GET',
    `/form-submissions?formId=${world.form.id}&siteId=${world.site}&year=${world.year}`,
    {
      token,
    },
  );
  const keys = new Map(world.form.elements.map((e) => [e.id, e.key]));
  return (res.body.items[0]?.values ?? []).map((v: any) => ({ ...v, key: keys.get(v.elementId) }));
}

describe.skipIf(!hasChromium)(`the reporting web app (${hasChromium ? 'Chromium' : NO_CHROMIUM})`, () => {
  it('serves the shell with a strict CSP, content-hashed assets and no inline script', async () => {
    const res = await fetch(`${world.base}/app/enter/x/y/2025/3`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const page = await res.text();
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = /src="(\/app\/assets\/main-[A-Z0-9]+\.js)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${world.base}${script}`);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${world.base}/app/assets/nothing.js`)).status).toBe(404);
  });

  it('a collector invited by e-mail sets a password and sees March missing', async () => {
    collectorEmail = `lea-${Date.now()}@acme.example`;
    const invited = await api(world.t, 'POST', '/organizations/current/invitations', {
      token: world.tenant.owner.token,
      body: { email: collectorEmail, assignedSiteIds: [world.site], role: 'COLLECTOR' },
    });
    expect(invited.status).toBe(200);
    const mail = (await world.outbox()).find((m) => m.to === collectorEmail)!;
    const link = /(http\S+\/app\/accept-invitation\?token=\S+)/.exec(mail.text)?.[1];
    expect(link, mail.text).toBeDefined();

    const { context, page, errors } = await newPage();
    await page.goto(link!);
    await page.getByLabel('Your name').fill('Léa Martin');
    await page.getByLabel('Password').fill(PASSWORD);
    await shot(page, 'accept-invitation-desktop');
    await page.getByRole('button', { name: 'Accept and continue' }).click();
    await page.getByRole('heading', { name: 'My reporting' }).waitFor();
    expect(page.url()).toBe(`${world.base}/app`);
    // The access token lives in sessionStorage, never in the address.
    expect(await page.evaluate(() => sessionStorage.getItem('sdcs.token'))).toMatch(/\S{20,}/);
    await page.getByLabel('Year').selectOption(String(world.year));
    const march = page.getByRole('link', { name: `Mar ${world.year} Missing Late` });
    await march.waitFor();
    await expect(march.isVisible()).resolves.toBe(true);
    await shot(page, 'my-reporting-desktop');
    const me = await api(world.t, 'GET', '/organizations/current/members', {
      token: world.tenant.owner.token,
    });
    collectorId = me.body.find((m: { email: string }) => m.email === collectorEmail).userId;
    expect(errors).toEqual([]);
    await context.close();
  });

  it('enters electricity in MWh, two fuel activities and an invoice PDF; March becomes complete', async () => {
    const { context, page, errors } = await newPage();
    await signIn(page, world.base, collectorEmail, PASSWORD);
    await page.goto(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/3`);
    await page.getByRole('heading', { name: `Energy and fuel: March ${world.year}` }).waitFor();

    await page.getByLabel('Electricity used (kilowatt-hour)').fill('1.5');
    await page.getByLabel('Unit', { exact: true }).selectOption({ label: 'megawatt-hour' });
    await page.getByRole('button', { name: 'Add Fuel purchase' }).click();
    await page.locator('#el-fuel-0-fuel').selectOption('diesel');
    await page.locator('#el-fuel-0-litres').fill('100');
    await page.getByRole('button', { name: 'Add Fuel purchase' }).click();
    await page.locator('#el-fuel-1-fuel').selectOption('petrol');
    await page.locator('#el-fuel-1-litres').fill('50');
    await page.getByLabel('Energy invoice').setInputFiles({
      name: 'invoice-march.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'),
    });
    await page.getByText('invoice-march.pdf').waitFor();
    // The uploaded file can be downloaded back (a signed link of the service).
    const download = await page.getByRole('link', { name: 'Download' }).getAttribute('href');
    expect(await (await fetch(download!)).text()).toContain('%PDF-1.4');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved at/).waitFor();

    // Stored converted: 1.5 MWh = 1,500 kWh, with what was typed kept as the original.
    const stored = await storedValues(world.tenant.owner.token);
    const electricity = stored.find((v: any) => v.key === 'electricity' && v.periodUnit === 3);
    expect(electricity.value).toBe(1500);
    expect(electricity.originalValue).toBe(1.5);
    expect(electricity.selectedUnitId).toBe(world.units['MWh']);
    expect(stored.find((v: any) => v.key === 'invoice')?.value).toMatch(/^[0-9a-f-]{36}$/);
    // The calculated values: 100 L diesel × 2.68 = 268; 50 L petrol × 2.31 = 115.5; total 383.5.
    const rows = page.locator('.type-activity .row-card');
    await expect(rows.nth(0).textContent()).resolves.toContain(
      `Calculated value: ${100 * FUEL_FACTORS.diesel}`,
    );
    await expect(rows.nth(1).textContent()).resolves.toContain('Calculated value: 115.5');
    await expect(page.locator('.type-activity').textContent()).resolves.toContain('Total: 383.5');
    await expect(page.getByLabel('Electricity used (kilowatt-hour)').inputValue()).resolves.toBe('1.5');
    await expect(page.locator('.type-number').textContent()).resolves.toContain(
      'stored as 1,500 kilowatt-hour',
    );
    // The definition's uiCode is never run in the app's origin.
    expect(await page.evaluate(() => document.body.dataset['uiCodeRan'])).toBeUndefined();
    await shot(page, 'enter-period-saved-desktop');

    await page.getByRole('link', { name: '← My reporting' }).click();
    await page.getByRole('link', { name: `Mar ${world.year} Complete` }).waitFor();
    expect(await periodStatus(world.tenant.owner.token, 3)).toBe('COMPLETE');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a wrong value shows its error beside the field and keeps everything typed (phone)', async () => {
    const { context, page, errors } = await newPage(PHONE);
    await signIn(page, world.base, collectorEmail, PASSWORD);
    await page.goto(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/4`);
    await page.getByLabel('Electricity used (kilowatt-hour)').fill('12 MWh');
    await page.getByRole('button', { name: 'Add Fuel purchase' }).click();
    await page.locator('#el-fuel-0-fuel').selectOption('diesel');
    await page.locator('#el-fuel-0-litres').fill('forty');
    await page.getByLabel('Note for the reviewer').fill('Meter replaced on the 12th');
    await page.getByRole('button', { name: 'Save' }).click();
    const fieldError = page.locator('[data-key="electricity"] .field-error');
    await fieldError.waitFor();
    expect(await fieldError.textContent()).toMatch(/number/i);
    await expect(page.getByRole('alert').filter({ hasText: 'Nothing was saved' }).isVisible()).resolves.toBe(
      true,
    );
    expect(await page.getByLabel('Electricity used (kilowatt-hour)').getAttribute('aria-invalid')).toBe(
      'true',
    );
    // Focus moves after the refusal is drawn (next animation frame).
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('el-electricity');
    // The activity's input error sits beside that input of that row.
    const litresError = page.locator('#el-fuel-0-litres-error');
    await litresError.waitFor();
    expect(await litresError.textContent()).toMatch(/number/i);
    expect(await page.locator('#el-fuel-0-litres').getAttribute('aria-invalid')).toBe('true');
    // Nothing typed is lost.
    await expect(page.getByLabel('Electricity used (kilowatt-hour)').inputValue()).resolves.toBe('12 MWh');
    await expect(page.locator('#el-fuel-0-litres').inputValue()).resolves.toBe('forty');
    await expect(page.getByLabel('Note for the reviewer').inputValue()).resolves.toBe(
      'Meter replaced on the 12th',
    );
    // All or nothing: April still holds no value.
    expect((await storedValues(world.tenant.owner.token)).filter((v: any) => v.periodUnit === 4)).toEqual([]);
    await shot(page, 'enter-period-error-phone');

    await page.getByLabel('Electricity used (kilowatt-hour)').fill('12000');
    await page.locator('#el-fuel-0-litres').fill('40');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved at/).waitFor();
    expect(errors.filter((e) => !e.includes('400'))).toEqual([]);
    await context.close();
  });

  it('marks a period “no activity” for the fuel purchases, with the keyboard only', async () => {
    const { context, page, errors } = await newPage();
    await signIn(page, world.base, collectorEmail, PASSWORD);
    await page.goto(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/6`);
    const box = page.getByLabel('No activity this period');
    await box.focus();
    await page.keyboard.press('Space');
    expect(await box.isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Save' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText(/^Saved at/).waitFor();
    const listed = await api(
      world.t,
      'GET',
      `/activities?formId=${world.form.id}&key=fuel&siteIds=${world.site}&years=${world.year}&periodUnits=6`,
      { token: world.tenant.owner.token },
    );
    expect(listed.body.noActivity).toHaveLength(1);
    expect(listed.body.activities).toEqual([]);
    // Read back from the service: the box stays checked after the reload.
    await page.reload();
    await page.getByLabel('No activity this period').waitFor();
    expect(await page.getByLabel('No activity this period').isChecked()).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('enters a BOOLEAN, a SELECT, a DATE and TIMESTAMP readings, stored as the API types them', async () => {
    const created = await api(world.t, 'POST', '/forms', {
      token: world.tenant.owner.token,
      body: {
        name: 'Site facts',
        periodType: 'MONTHLY',
        elements: [
          { key: 'iso', label: 'ISO 14001 certified', type: 'BOOLEAN' },
          {
            key: 'heating',
            label: 'Main heating',
            type: 'SELECT',
            options: [
              { label: 'Gas boiler', value: 'gas' },
              { label: 'Heat pump', value: 'heat_pump' },
            ],
          },
          { key: 'audit', label: 'Last energy audit', type: 'DATE' },
          { key: 'meter', label: 'Meter readings', type: 'TIMESTAMP' },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const formId = created.body.id as string;
    const activated = await api(world.t, 'PUT', '/form-sites', {
      token: world.tenant.owner.token,
      body: { formId, siteIds: [world.site], years: [world.year] },
    });
    expect(activated.status).toBe(200);
    const { context, page, errors } = await newPage();
    await signIn(page, world.base, collectorEmail, PASSWORD);
    await page.goto(`${world.base}/app/enter/${formId}/${world.site}/${world.year}/2`);
    await page.getByLabel('ISO 14001 certified').selectOption({ label: 'Yes' });
    await page.getByLabel('Main heating').selectOption({ label: 'Heat pump' });
    await page.getByLabel('Last energy audit').fill(`${world.year}-02-14`);
    await page.getByRole('button', { name: 'Add a reading' }).click();
    await page.locator('#el-meter-0-at').fill(`${world.year}-02-03T08:30`);
    await page.locator('#el-meter-0-value').fill('10,250.5');
    await page.getByRole('button', { name: 'Add a reading' }).click();
    await page.locator('#el-meter-1-at').fill(`${world.year}-02-17T08:30`);
    await page.locator('#el-meter-1-value').fill('10400');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved at/).waitFor();
    const res = await api(
      world.t,
      'GET',
      `/form-submissions?formId=${formId}&siteId=${world.site}&year=${world.year}`,
      { token: world.tenant.owner.token },
    );
    const keys = new Map(
      (await api(world.t, 'GET', `/forms/${formId}`, { token: world.tenant.owner.token })).body.elements.map(
        (e: any) => [e.id, e.key],
      ),
    );
    const byKey = (key: string) => res.body.items[0].values.filter((v: any) => keys.get(v.elementId) === key);
    expect(byKey('iso')[0].value).toBe(true);
    expect(byKey('heating')[0].value).toBe('heat_pump');
    expect(byKey('audit')[0].value).toBe(`${world.year}-02-14`);
    // "10,250.5" typed in English is 10250.5; the browser's clock is UTC here.
    expect(byKey('meter').map((v: any) => [v.timestamp, v.value])).toEqual([
      [`${world.year}-02-03T08:30:00.000Z`, 10250.5],
      [`${world.year}-02-17T08:30:00.000Z`, 10400],
    ]);
    // Read back after the save, in the browser's locale.
    await expect(page.locator('#el-meter-0-value').inputValue()).resolves.toBe('10250.5');
    await expect(page.getByLabel('Main heating').inputValue()).resolves.toBe('heat_pump');
    await shot(page, 'enter-period-types-desktop');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('signs in with the keyboard, chooses among two organizations, and signs out', async () => {
    // Someone who reports for Acme and reads at Beta Recycling.
    const person = await addMember(world.t, world.tenant.organizationId, 'COLLECTOR');
    await setPassword(world.t, person.userId, PASSWORD);
    const other = await createTenant(world.t, 'Beta Recycling');
    await world.t.database.system((tx) =>
      tx
        .insertInto('memberships')
        .values({ organization_id: other.organizationId, user_id: person.userId, role: 'VIEWER' })
        .execute(),
    );
    const { context, page, errors } = await newPage(PHONE);
    await page.goto(`${world.base}/app`);
    await page.getByLabel('E-mail address').waitFor();
    await page.keyboard.press('Tab'); // the skip link
    await page.keyboard.press('Tab'); // the language menu
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('language-choice');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('signin-email');
    await page.keyboard.type(person.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    const choice = page.getByLabel('Organization');
    await choice.waitFor();
    await shot(page, 'sign-in-organization-phone');
    await choice.selectOption({ label: 'Beta Recycling (Viewer)' });
    await page.getByRole('button', { name: 'Continue' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'My reporting' }).waitFor();
    expect(await page.locator('.who').textContent()).toContain('Beta Recycling (Viewer)');
    // A viewer has neither Review nor Import.
    expect(await page.getByRole('link', { name: 'Review' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Sign out' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('You are signed out.').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('sdcs.token'))).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a manager rejects one value with a comment on the Review screen and the collector sees it', async () => {
    const manager = await newPage();
    await signIn(manager.page, world.base, world.tenant.manager.email, PASSWORD);
    await manager.page.getByRole('link', { name: 'Review' }).click();
    await manager.page.getByLabel('Year').selectOption(String(world.year));
    await manager.page.getByLabel('Period').selectOption({ label: `March ${world.year}` });
    await manager.page.getByLabel('Status').selectOption({ label: 'Entered' });
    const row = `Electricity used at ${world.siteName}`;
    await manager.page.getByLabel(`Select ${row}`).check();
    await manager.page
      .getByLabel('Comment for the collector (required to reject)')
      .fill('The March invoice says 1.6 MWh');
    await manager.page.getByRole('button', { name: 'Reject selected (1)' }).click();
    await manager.page.getByText('1 value rejected.').waitFor();
    // Filtered on "Entered", the rejected value has left the list; the other values are still there.
    expect(await manager.page.getByLabel(`Select ${row}`).count()).toBe(0);
    expect(await manager.page.getByLabel(`Select Energy invoice at ${world.siteName}`).count()).toBe(1);
    // One value approved from its own row's button (no comment needed).
    await manager.page.getByRole('button', { name: `Approve Energy invoice at ${world.siteName}` }).click();
    await manager.page.getByText('1 value approved.').waitFor();
    await manager.page.getByLabel('Status').selectOption({ label: 'Rejected' });
    await manager.page.getByRole('button', { name: `History of ${row}` }).click();
    await manager.page.locator('.history').getByText('The March invoice says 1.6 MWh').waitFor();
    await shot(manager.page, 'review-desktop');
    const stored = await storedValues(world.tenant.owner.token);
    const electricity = stored.find((v: any) => v.key === 'electricity' && v.periodUnit === 3);
    expect(electricity.status).toBe('REJECTED');
    expect(stored.filter((v: any) => v.status === 'REJECTED')).toHaveLength(1);
    expect(stored.find((v: any) => v.key === 'invoice').status).toBe('APPROVED');
    expect(manager.errors).toEqual([]);
    await manager.context.close();

    const { context, page } = await newPage(PHONE);
    await signIn(page, world.base, collectorEmail, PASSWORD);
    await page.goto(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/3`);
    const review = page.locator('[data-key="electricity"] .review');
    await review.waitFor();
    expect(await review.textContent()).toContain('Rejected');
    expect(await review.textContent()).toContain('The March invoice says 1.6 MWh');
    await shot(page, 'enter-period-rejected-phone');
    await context.close();
  });

  it('a locked period is read-only and names its lock', async () => {
    const locked = await api(world.t, 'POST', '/form-locks', {
      token: world.tenant.owner.token,
      body: { formId: world.form.id, year: world.year, periodUnit: 3 },
    });
    expect(locked.status, JSON.stringify(locked.body)).toBe(200);
    await setPassword(world.t, collectorId, PASSWORD);
    const { context, page } = await newPage();
    await signIn(page, world.base, collectorEmail, PASSWORD);
    await page.goto(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/3`);
    await page.getByText('This period is locked').waitFor();
    expect(await page.locator('.lock').textContent()).toContain('Locked by Owner');
    expect(await page.getByLabel('Electricity used (kilowatt-hour)').isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    await shot(page, 'enter-period-locked-desktop');
    await context.close();
  });

  it('a manager imports a two-sheet .xlsx: preview with row issues, confirmation, execute, values shown', async () => {
    const org = world.tenant.organizationId;
    const grenoble = await createSite(world.t, org, { name: 'Grenoble warehouse', code: 'GRE' });
    await assignSites(world.t, org, world.tenant.manager.userId, [grenoble]);
    const adapter = await api(world.t, 'POST', '/source-adapter-definitions', {
      token: world.tenant.manager.token,
      body: {
        name: 'Monthly utilities workbook',
        mapping: {
          sheets: [
            {
              sheet: 'Electricity',
              draft: 'form_value',
              form: { id: world.form.id },
              site: { column: 'Site', match: 'code' },
              year: { column: 'Year' },
              period: { column: 'Month' },
              element: { key: 'electricity' },
              value: { column: 'Amount' },
              unit: { column: 'Unit' },
            },
            {
              sheet: 'Fuel',
              draft: 'activity',
              form: { id: world.form.id },
              site: { column: 'Site', match: 'code' },
              period: { dateColumn: 'Date' },
              activity: { key: 'fuel' },
              inputs: { fuel: { column: 'Fuel' }, litres: { column: 'Litres' } },
            },
          ],
        },
      },
    });
    expect(adapter.status, JSON.stringify(adapter.body)).toBe(200);
    const workbook = new ExcelJS.Workbook();
    const electricity = workbook.addWorksheet('Electricity');
    electricity.addRows([
      ['Site', 'Year', 'Month', 'Amount', 'Unit'],
      ['LYO', world.year, 5, 2, 'MWh'], // 2 MWh = 2,000 kWh
      ['GRE', world.year, 5, 800, 'kWh'], // the form is not active at Grenoble: needs the confirmation
      ['LYO', world.year, 13, 1, 'kWh'], // spreadsheet row 4: no month 13
    ]);
    const fuel = workbook.addWorksheet('Fuel');
    fuel.addRows([
      ['Site', 'Date', 'Fuel', 'Litres'],
      ['LYO', `${world.year}-05-10`, 'diesel', 30], // 30 × 2.68 = 80.4
      ['LYO', `${world.year}-05-20`, 'petrol', 10], // 10 × 2.31 = 23.1
    ]);
    const xlsx = Buffer.from(await workbook.xlsx.writeBuffer());

    const { context, page, errors } = await newPage();
    await signIn(page, world.base, world.tenant.manager.email, PASSWORD);
    await page.getByRole('link', { name: 'Import' }).click();
    await page.getByLabel('Source adapter').selectOption({ label: 'Monthly utilities workbook' });
    await page.getByLabel('Workbook (.xlsx) or CSV file').setInputFiles({
      name: 'utilities-may.xlsx',
      mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      buffer: xlsx,
    });
    await page.getByText('Read Electricity (3 rows), Fuel (2 rows).').waitFor();
    await page.getByRole('button', { name: 'Preview the import' }).click();
    await page.getByRole('heading', { name: '2. Preview: nothing is written yet' }).waitFor();
    const issueRow = page.locator('table tbody tr').filter({ hasText: 'Electricity' }).first();
    expect(await issueRow.locator('td').nth(1).textContent()).toBe('4');
    await shot(page, 'import-preview-desktop');
    // Nothing written by the preview.
    expect((await storedValues(world.tenant.owner.token)).filter((v: any) => v.periodUnit === 5)).toEqual([]);

    await page.getByRole('button', { name: /^Import the \d+ ready rows$/ }).click();
    await page.getByRole('heading', { name: 'Confirm: some forms are not active on these sites' }).waitFor();
    expect(await page.locator('.attention table').textContent()).toContain('Grenoble warehouse');
    await page.getByLabel('Make these forms active on these sites and import all the rows').check();
    await page.getByRole('button', { name: 'Import with the confirmation' }).click();
    await page.getByText(/^Imported: /).waitFor();
    await shot(page, 'import-done-desktop');

    const may = (await storedValues(world.tenant.owner.token)).filter((v: any) => v.periodUnit === 5);
    expect(may.find((v: any) => v.key === 'electricity').value).toBe(2000);
    await page.goto(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/5`);
    const rows = page.locator('.type-activity .row-card');
    await rows.nth(1).waitFor();
    await expect(rows.nth(0).textContent()).resolves.toContain('Calculated value: 80.4');
    await expect(rows.nth(1).textContent()).resolves.toContain('Calculated value: 23.1');
    await expect(page.locator('.type-number').textContent()).resolves.toMatch(/2,000 kilowatt-hour|^.*2000/);
    await shot(page, 'import-values-desktop');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('a manager imports a .csv as one sheet of the adapter', async () => {
    const { context, page, errors } = await newPage(PHONE);
    await signIn(page, world.base, world.tenant.manager.email, PASSWORD);
    await page.goto(`${world.base}/app/import`);
    await page.getByLabel('Source adapter').selectOption({ label: 'Monthly utilities workbook' });
    await page.getByLabel('Workbook (.xlsx) or CSV file').setInputFiles({
      name: 'electricity-july.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`Site,Year,Month,Amount,Unit\nLYO,${world.year},7,"1,250",kWh\n`),
    });
    await page.getByLabel('This CSV file is the sheet').selectOption('Electricity');
    await page.getByText('Read Electricity (1 row).').waitFor();
    await page.getByRole('button', { name: 'Preview the import' }).click();
    // "1,250" is no plain number: the service says so for row 2 of the file, nothing is ready.
    await page.getByRole('heading', { name: '2. Preview: nothing is written yet' }).waitFor();
    const issue = page.locator('table tbody tr').first();
    expect(await issue.locator('td').nth(1).textContent()).toBe('2');
    expect(await issue.locator('td').nth(2).textContent()).toBe('Amount');
    await page.getByText('Nothing is ready to import.').waitFor();
    await shot(page, 'import-csv-phone');
    // The other screens at phone width, for a look.
    await page.getByRole('link', { name: 'My reporting' }).click();
    await page.getByLabel('Year').selectOption(String(world.year));
    await page
      .getByRole('link', { name: `Mar ${world.year}` })
      .first()
      .waitFor();
    await shot(page, 'my-reporting-phone');
    await page.goto(`${world.base}/app/review?form=${world.form.id}&year=${world.year}&period=3`);
    await page.locator('table tbody tr').first().waitFor();
    await shot(page, 'review-phone');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
