import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers/app.ts';
import { axeViolations, collectErrors, hasChromium, launchChromium, NO_CHROMIUM } from './helpers/browser.ts';
import { assignSites } from './helpers/factories.ts';
import { createWebAppWorld, setPassword, signIn, type WebAppWorld } from './helpers/web-app-world.ts';

// The reporting app without a connection (issue 47): the service worker serves /app, the app opens
// with the answers it last read, a save is queued with its Idempotency-Key and sent once when the
// connection returns; what the service refuses meanwhile (a new lock) is shown with its reason, and
// a value someone else changed meanwhile is left for the person to choose. Screenshots go to
// test-output/ (web-app-offline-*.png), or to the folder SCREENSHOTS names.

const OUT = process.env.SCREENSHOTS || 'test-output';
const PASSWORD = 'correct horse battery';
const LABEL = 'Electricity used (kilowatt-hour)';

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

interface Opened {
  context: BrowserContext;
  page: Page;
  errors: string[];
  /**
   * Every POST /form-submissions (not its check) that reached the service, with its Idempotency-Key
   * (a request the offline browser could not send is not counted: the service never saw it).
   */
  saves: { key: string | undefined; body: any }[];
}

/** Signs in, opens the period online (its answers are kept) and waits for the service worker. */
async function openOnline(periodUnit: number, email = world.tenant.manager.email): Promise<Opened> {
  const context = await browser!.newContext({
    locale: 'en-GB',
    timezoneId: 'UTC',
    viewport: { width: 1280, height: 900 },
    serviceWorkers: 'allow',
  });
  const page = await context.newPage();
  const saves: Opened['saves'] = [];
  page.on('requestfinished', (request: Request) => {
    if (request.method() === 'POST' && /\/form-submissions$/.test(request.url())) {
      saves.push({ key: request.headers()['idempotency-key'], body: request.postDataJSON() });
    }
  });
  page.on('dialog', (dialog) => void dialog.accept());
  const errors = collectErrors(page);
  await signIn(page, world.base, email, PASSWORD);
  await page.goto(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/${periodUnit}`);
  await page.getByLabel(LABEL).waitFor();
  // The worker installed, activated and controlling the page (it claims open pages).
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20_000 });
  return { context, page, errors, saves };
}

/** The stored value of an element in a period, as the API answers it (null: none). */
async function stored(periodUnit: number, key: string) {
  const token = world.tenant.owner.token;
  const element = world.form.elements.find((e) => e.key === key)!;
  const res = await api(
    world.t,
    'GET',
    `/form-submissions?formId=${world.form.id}&siteId=${world.site}&year=${world.year}`,
    { token },
  );
  return (
    (res.body.items[0]?.values ?? []).find(
      (v: any) => v.elementId === element.id && v.periodUnit === periodUnit && v.value !== null,
    ) ?? null
  );
}

async function history(valueId: string) {
  const res = await api(world.t, 'GET', `/form-submissions/values/${valueId}/history`, {
    token: world.tenant.owner.token,
  });
  expect(res.status).toBe(200);
  return res.body as { action: string }[];
}

async function shot(page: Page, name: string) {
  const violations = await axeViolations(page);
  await page.screenshot({ path: `${OUT}/web-app-offline-${name}.png`, fullPage: true });
  expect(violations, name).toEqual([]);
}

/** CSP refusals and the like; a request the offline browser could not make is expected. */
const unexpected = (errors: string[]) =>
  errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/.test(e));

describe.skipIf(!hasChromium)(`the app offline (${hasChromium ? 'Chromium' : NO_CHROMIUM})`, () => {
  it('reloads offline, queues the save, and stores it once when the connection returns', async () => {
    const { context, page, errors, saves } = await openOnline(5);
    await context.setOffline(true);
    await page.reload();
    // The shell from the worker, the period from the answers kept for this person.
    await page.getByRole('heading', { name: /Energy and fuel: May/ }).waitFor();
    await page.getByText('Offline: what you save is kept on this device').waitFor();
    await page.getByLabel(LABEL).fill('1234.5');
    await page.getByLabel('Note for the reviewer').fill('Read on the meter in the boiler house');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved on this device at/).waitFor();
    await page.getByText('1 period waiting to be sent').waitFor();
    expect(saves).toEqual([]);
    expect(await stored(5, 'electricity')).toBeNull();
    await shot(page, 'queued');

    // Still there after another reload without a connection: values as typed, the notice, the header.
    await page.reload();
    await page.getByText('Your values of this period were saved on this device').waitFor();
    expect(await page.getByLabel(LABEL).inputValue()).toBe('1234.5');
    await page.getByText('1 period waiting to be sent').waitFor();

    await context.setOffline(false);
    await page.getByText('Your values kept on this device were sent and stored.').waitFor();
    await page.locator('.outbox-list').waitFor({ state: 'detached' });
    const electricity = await stored(5, 'electricity');
    const note = await stored(5, 'note');
    expect(electricity.value).toBe(1234.5);
    expect(note.value).toBe('Read on the meter in the boiler house');
    expect(await history(electricity.formElementSubmissionId)).toHaveLength(1);
    expect(await history(note.formElementSubmissionId)).toHaveLength(1);
    // Sent once, with the key it was queued with.
    expect(saves).toHaveLength(1);
    expect(saves[0]!.key).toMatch(/^[0-9a-f-]{36}\.[0-9a-f]{32}$/);
    expect(saves[0]!.body.values).toEqual([
      { elementKey: 'electricity', periodUnit: 5, value: 1234.5 },
      { elementKey: 'note', periodUnit: 5, value: 'Read on the meter in the boiler house' },
    ]);
    // The field now shows the stored value and the draft is gone: no offer to restore.
    await page.reload();
    await page.getByLabel(LABEL).waitFor();
    expect(await page.getByLabel(LABEL).inputValue()).toBe('1234.5');
    expect(await page.getByText(/^Restore/).count()).toBe(0);

    // Signing out forgets the answers kept for this person.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const left = await page.evaluate(
      () =>
        new Promise<string[]>((resolve, reject) => {
          const open = indexedDB.open('sdcs-answers');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const request = open.result.transaction('answers').objectStore('answers').getAllKeys();
            request.onsuccess = () => resolve(request.result.map(String));
          };
        }),
    );
    expect(left.filter((k) => k.includes(world.tenant.manager.userId))).toEqual([]);
    expect(unexpected(errors)).toEqual([]);
    await context.close();
  });

  it('a value refused meanwhile by a new lock is shown with the lock’s reason, and nothing is stored', async () => {
    const { context, page, errors, saves } = await openOnline(6);
    await context.setOffline(true);
    await page.getByLabel(LABEL).fill('77');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('1 period waiting to be sent').waitFor();
    const locked = await api(world.t, 'POST', '/form-locks', {
      token: world.tenant.owner.token,
      body: { formId: world.form.id, year: world.year, periodUnit: 6 },
    });
    expect(locked.status, JSON.stringify(locked.body)).toBe(200);

    await context.setOffline(false);
    await page.getByText('1 period needs your attention').waitFor();
    const notice = page.locator('.queued.refused');
    await notice.waitFor();
    expect(await notice.textContent()).toContain(
      `Electricity used for June ${world.year} is locked: closed for reporting`,
    );
    expect(saves).toHaveLength(1);
    expect(await stored(6, 'electricity')).toBeNull();
    // Beside the field at once, and the "saved on this device" line is gone.
    expect(await page.locator('[data-key="electricity"] .field-error').textContent()).toContain(
      'is locked: closed for reporting',
    );
    expect(await page.getByText(/^Saved on this device/).count()).toBe(0);

    // Opened again: the lock, the refused value beside its field, the reason in the notice.
    await page.reload();
    await page.getByText('This period is locked').waitFor();
    const beside = page.locator('[data-key="electricity"] .field-error');
    await beside.waitFor();
    expect(await beside.textContent()).toContain('is locked: closed for reporting');
    expect(await page.getByLabel(LABEL).inputValue()).toBe('77');
    await shot(page, 'refused-by-lock');
    // Forgotten when the person says so; never sent again.
    await page.getByRole('button', { name: 'Forget the values that were not stored' }).click();
    await page.locator('.outbox-list').waitFor({ state: 'detached' });
    expect(saves).toHaveLength(1);
    expect(unexpected(errors)).toEqual([]);
    await context.close();
  });

  it('a value someone stored meanwhile is not overwritten: the person chooses', async () => {
    const { context, page, errors, saves } = await openOnline(7);
    await context.setOffline(true);
    await page.getByLabel(LABEL).fill('500');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('1 period waiting to be sent').waitFor();
    const theirs = await api(world.t, 'POST', '/form-submissions', {
      token: world.tenant.owner.token,
      body: {
        formId: world.form.id,
        siteId: world.site,
        year: world.year,
        values: [{ elementKey: 'electricity', periodUnit: 7, value: 480 }],
      },
    });
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(200);

    await context.setOffline(false);
    const notice = page.locator('.queued.refused');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('Electricity used: now 480; yours 500.');
    expect(saves).toEqual([]);
    expect((await stored(7, 'electricity')).value).toBe(480);
    await shot(page, 'conflict');
    await page.getByRole('button', { name: 'Keep mine (Electricity used)' }).click();
    await notice.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved at/).waitFor();
    expect((await stored(7, 'electricity')).value).toBe(500);
    expect(unexpected(errors)).toEqual([]);
    await context.close();
  });

  it('a retry whose body shrank (a value held back for the person) is stored, not refused as a reused key', async () => {
    const { context, page, errors, saves } = await openOnline(8);
    await context.setOffline(true);
    await page.getByLabel(LABEL).fill('600');
    await page.getByLabel('Note for the reviewer').fill('Meter read in August');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('1 period waiting to be sent').waitFor();
    // The first send reaches the service and stores both values, but its answer is lost.
    let lost: () => void = () => {};
    const answerLost = new Promise<void>((resolve) => {
      lost = resolve;
    });
    let first = true;
    await context.route(/\/api\/v1\/form-submissions$|\/form-submissions$/, async (route) => {
      if (route.request().method() !== 'POST' || !first) return route.fallback();
      first = false;
      await route.fetch();
      await route.abort('failed');
      lost();
    });
    await context.setOffline(false);
    await answerLost;
    expect((await stored(8, 'electricity')).value).toBe(600);
    // Someone else changes the note before the retry: the retry holds it back, its body shrinks.
    const theirs = await api(world.t, 'POST', '/form-submissions', {
      token: world.tenant.owner.token,
      body: {
        formId: world.form.id,
        siteId: world.site,
        year: world.year,
        values: [{ elementKey: 'note', periodUnit: 8, value: 'Estimated by the controller' }],
      },
    });
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(200);
    await page.getByRole('button', { name: 'Send now' }).click();
    const notice = page.locator('.queued.refused');
    await notice.waitFor();
    const text = (await notice.textContent()) ?? '';
    expect(text).toContain('Someone stored another value since you changed it on this device');
    expect(text).toContain('Note for the reviewer');
    expect(text).not.toContain('Idempotency-Key');
    // The retry carried only the electricity, under a key of its own; stored once in all.
    expect(saves).toHaveLength(1);
    expect(saves[0]!.body.values).toEqual([{ elementKey: 'electricity', periodUnit: 8, value: 600 }]);
    const electricity = await stored(8, 'electricity');
    expect(electricity.value).toBe(600);
    expect(await history(electricity.formElementSubmissionId)).toHaveLength(1);
    expect((await stored(8, 'note')).value).toBe('Estimated by the controller');
    expect(unexpected(errors)).toEqual([]);
    await context.close();
  });

  it('a file picked offline waits in the queue and is uploaded once, with the values, when sent', async () => {
    const { context, page, errors, saves } = await openOnline(8);
    const uploads: string[] = [];
    page.on('requestfinished', (request: Request) => {
      if (request.method() === 'POST' && request.url().includes('/media/presigned-url'))
        uploads.push(request.url());
    });
    await context.setOffline(true);
    await page.getByLabel(LABEL).fill('310');
    const pdf = '%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n';
    await page.getByLabel('Energy invoice').setInputFiles({
      name: 'invoice-august.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from(pdf),
    });
    await page.getByText('invoice-august.pdf is kept on this device').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('1 period waiting to be sent').waitFor();
    expect(uploads).toEqual([]);

    await context.setOffline(false);
    await page.getByText('Your values kept on this device were sent and stored.').waitFor();
    expect(uploads).toHaveLength(1);
    expect(saves).toHaveLength(1);
    const invoice = await stored(8, 'invoice');
    expect(saves[0]!.body.values).toEqual([
      { elementKey: 'electricity', periodUnit: 8, value: 310 },
      { elementKey: 'invoice', periodUnit: 8, value: invoice.value },
    ]);
    const media = await api(world.t, 'GET', `/media/${invoice.value}`, { token: world.tenant.owner.token });
    expect(media.status).toBe(200);
    expect(media.body.fileName).toBe('invoice-august.pdf');
    expect(media.body.size).toBe(Buffer.byteLength(pdf));
    expect((await stored(8, 'electricity')).value).toBe(310);
    expect(unexpected(errors)).toEqual([]);
    await context.close();
  });

  it('a site taken from the collector meanwhile: each queued value is reported with the reason', async () => {
    const { organizationId } = world.tenant;
    const collector = world.tenant.collector;
    await setPassword(world.t, collector.userId, PASSWORD);
    await assignSites(world.t, organizationId, collector.userId, [world.site]);
    const { context, page, errors, saves } = await openOnline(9, collector.email);
    await context.setOffline(true);
    await page.getByLabel(LABEL).fill('42');
    await page.getByLabel('Note for the reviewer').fill('Estimated from the invoice');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('1 period waiting to be sent').waitFor();
    await world.t.database.tenant(organizationId, (tx) =>
      tx.deleteFrom('membership_sites').where('user_id', '=', collector.userId).execute(),
    );

    await context.setOffline(false);
    await page.getByText('1 period needs your attention').waitFor();
    const notice = page.locator('.queued.refused');
    await notice.waitFor();
    const lines = await notice.locator('li').allTextContents();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^Electricity used: .*${world.siteName}`));
    expect(lines[1]).toMatch(new RegExp(`^Note for the reviewer: .*${world.siteName}`));
    expect(saves).toEqual([]);
    expect(await stored(9, 'electricity')).toBeNull();
    await shot(page, 'refused-site-taken');
    expect(unexpected(errors)).toEqual([]);
    await context.close();
  });
});
