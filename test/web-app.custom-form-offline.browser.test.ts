import { mkdirSync } from 'node:fs';
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, NO_CHROMIUM } from './helpers/browser.ts';
import {
  type CustomFormWorld,
  createCustomFormWorld,
  FUEL_FORM,
  openEntry,
  setUiCode,
  storedFuel,
} from './helpers/custom-form-world.ts';
import { FUEL_FACTORS } from './helpers/web-app-world.ts';

// A custom activity form opened without a connection (issue 51, decision 224): the frame's
// document comes from the app's own bundle (a chunk the service worker keeps) and is written into
// the sandboxed frame with srcdoc, so the app opened or reloaded offline still shows the
// definition's own form. What is entered there is queued like any save and stored once when the
// connection returns, with its calculated value. Screenshots go to test-output/
// (web-app-custom-form-offline-*.png), or to the folder SCREENSHOTS names.

const OUT = process.env.SCREENSHOTS || 'test-output';

let custom: CustomFormWorld;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  mkdirSync(OUT, { recursive: true });
  custom = await createCustomFormWorld();
  await setUiCode(custom, FUEL_FORM);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await custom?.world.close();
}, 120_000);

describe.skipIf(!hasChromium)(`a custom form offline ${hasChromium ? '' : NO_CHROMIUM}`, () => {
  it('reloaded offline, the period shows the definition’s own form; the save is queued and stored once', async () => {
    const { world } = custom;
    const { context, page, errors } = await openEntry(browser!, world, 3);
    // Online the screen drew no custom form yet: the frame's document was never asked by the page.
    const frameChunk: string[] = [];
    page.on('request', (request: Request) => {
      if (/\/frame-document-\w+\.js$/.test(request.url())) frameChunk.push(request.url());
    });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20_000 });
    await context.setOffline(true);
    await page.reload();
    await page.getByText(/^Offline: /).waitFor();
    const saves: string[] = [];
    page.on('requestfinished', (request: Request) => {
      if (request.method() === 'POST' && /\/form-submissions$/.test(request.url())) saves.push(request.url());
    });

    await page.getByRole('button', { name: 'Add Fuel purchase' }).click();
    const frameElement = page.locator('iframe.custom-form');
    await expect(frameElement.getAttribute('sandbox')).resolves.toBe('allow-scripts');
    const inFrame = page.frameLocator('iframe.custom-form');
    await inFrame.getByLabel('Fuel type').selectOption('diesel');
    await inFrame.getByLabel('Litres').fill('40');
    await inFrame.getByText('About 33.6 kg of fuel').waitFor();
    await expect(page.getByText('This activity’s own form could not be shown').count()).resolves.toBe(0);
    // The document came from the service worker's cache: the page is offline.
    expect(frameChunk.length).toBeGreaterThan(0);
    await page.screenshot({ path: `${OUT}/web-app-custom-form-offline-filled.png`, fullPage: true });

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved on this device at/).waitFor();
    await page.screenshot({ path: `${OUT}/web-app-custom-form-offline-queued.png`, fullPage: true });
    await expect(storedFuel(world, 3)).resolves.toEqual([]);

    await context.setOffline(false);
    await page.getByText('Your values kept on this device were sent and stored.').waitFor();
    const stored = await storedFuel(world, 3);
    expect(stored.map((a) => a.input)).toEqual([{ fuel: 'diesel', litres: 40 }]);
    expect(stored[0]!.value).toBeCloseTo(40 * FUEL_FACTORS.diesel, 6);
    expect(saves).toHaveLength(1);
    // The frame is the same after the queue was sent: it still shows what was entered.
    await expect(inFrame.getByLabel('Litres').inputValue()).resolves.toBe('40');
    await page.screenshot({ path: `${OUT}/web-app-custom-form-offline-sent.png`, fullPage: true });
    // The page's own requests that failed offline are its only errors.
    expect(errors.filter((e) => !/ERR_INTERNET_DISCONNECTED/.test(e))).toEqual([]);
    await context.close();
  }, 90_000);
});
