import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.ts';
import { collectErrors, hasChromium, launchChromium, NO_CHROMIUM } from './helpers/browser.ts';
import { createTenant, type Tenant } from './helpers/factories.ts';

/**
 * /docs (Swagger UI) in a real browser (issue 26): "Try it out" on POST /sites and GET /me works
 * as it is, with nothing typed but the credential: the default example of POST /sites creates a
 * site in a new organization, and GET /me answers the caller.
 */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
// The document's server is the service's public URL: the page sends "Try it out" calls there.
const t = useTestApp({ publicUrl: origin });
const SHOTS = join(import.meta.dirname, '..', 'test-output');

describe.skipIf(!hasChromium)(`Swagger UI at /docs ${hasChromium ? '' : NO_CHROMIUM}`, () => {
  let browser: Browser;
  let tenant: Tenant;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    tenant = await createTenant(t);
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** The operation's block, opened, "Try it out" pressed, executed; answers the status shown. */
  async function tryItOut(page: Page, method: string, path: string): Promise<string> {
    const block = page
      .locator('.opblock')
      .filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) })
      .filter({ has: page.locator(`.opblock-summary-method:text-is("${method}")`) });
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.try-out__btn').click();
    await block.locator('button.execute').click();
    const status = block.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    return (await status.innerText()).trim();
  }

  it('POST /sites and GET /me answer 200 with the credential as the only input', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    const errors = collectErrors(page);
    await page.goto(`${origin}/docs`);
    // The page draws once it has read and resolved the whole document (3.5 s idle: bench/docs-page).
    await page.locator('button.authorize').first().click({ timeout: 60_000 });
    await page.locator('.modal-ux input').first().fill(tenant.owner.token);
    await page.locator('.modal-ux button.authorize').first().click();
    await page.locator('.modal-ux button.btn-done').first().click();

    expect(await tryItOut(page, 'POST', '/api/v1/sites')).toBe('200');
    const body = await page
      .locator('.opblock')
      .filter({ has: page.locator('.opblock-summary-path[data-path="/api/v1/sites"]') })
      .filter({ has: page.locator('.opblock-summary-method:text-is("POST")') })
      .locator('.live-responses-table .response-col_description pre')
      .first()
      .innerText();
    expect(JSON.parse(body)).toMatchObject({ name: 'Lyon plant', code: 'LYON-01', parentId: null });
    await page.screenshot({ path: join(SHOTS, 'docs-try-post-sites.png'), fullPage: false });

    expect(await tryItOut(page, 'GET', '/api/v1/me')).toBe('200');
    await page.screenshot({ path: join(SHOTS, 'docs-try-get-me.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 150_000);
});
