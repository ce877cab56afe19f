import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers/app.ts';
import { axeViolations, collectErrors, hasChromium, launchChromium, NO_CHROMIUM } from './helpers/browser.ts';
import { startTestProvider, type TestProvider } from './helpers/oidc-provider.ts';
import { createWebAppWorld, type WebAppWorld } from './helpers/web-app-world.ts';

// OIDC sign-in in a real browser (issue 49, decision 220): the app's "Sign in with <name>" →
// the provider's login page (oidc-provider, started here on a loopback port) → back to the app,
// signed in; and a refusal shown in words on the sign-in screen.

const OUT = 'test-output';
let world: WebAppWorld;
let provider: TestProvider;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  mkdirSync(OUT, { recursive: true });
  world = await createWebAppWorld({ oidcAllowHttp: true });
  provider = await startTestProvider({ redirectUris: [`${world.base}/api/v1/auth/oidc/callback`] });
  const set = await api(world.t, 'PUT', '/organizations/current/sso', {
    token: world.tenant.owner.token,
    body: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      displayName: 'Acme Login',
    },
  });
  expect(set.status).toBe(200);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await provider?.close();
  await world?.close();
}, 120_000);

describe.skipIf(!hasChromium)(
  `signing in with the organization's provider (${hasChromium ? 'Chromium' : NO_CHROMIUM})`,
  () => {
    it('the app’s button, the provider’s login page, back in the app signed in', async () => {
      const context = await browser!.newContext({ locale: 'en-US', timezoneId: 'UTC' });
      // The provider's development page imports a web font: nothing leaves the machine.
      await context.route(/fonts\.googleapis\.com/, (route) => route.abort());
      const page = await context.newPage();
      const errors = collectErrors(page);
      await page.goto(`${world.base}/app/sign-in?org=${world.tenant.organizationId}`);
      const button = page.getByRole('link', { name: 'Sign in with Acme Login' });
      await button.waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: `${OUT}/sso-sign-in.png`, fullPage: true });
      await button.click();

      // The provider's own login page.
      await page.waitForURL((url) => url.origin === provider.issuer);
      await page.locator('input[name="login"]').fill(world.tenant.manager.email);
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();

      // Back in the app, signed in as the manager, with no code or token left in the address.
      await page.getByRole('heading', { name: 'My reporting' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      expect(new URL(page.url()).hash).toBe('');
      expect(page.url()).not.toContain('sso=');
      const token = await page.evaluate(() => sessionStorage.getItem('sdcs.token'));
      expect(token).toMatch(/^sdcs_at_/);
      const me = await api(world.t, 'GET', '/me', { token: token! });
      expect(me.body.user.email).toBe(world.tenant.manager.email);
      await page.screenshot({ path: `${OUT}/sso-signed-in.png`, fullPage: true });
      expect(errors.filter((e) => !/fonts\.googleapis|net::ERR_FAILED/.test(e))).toEqual([]);
      await context.close();
    });

    it('an address that was not invited is told so on the sign-in screen, in words', async () => {
      const context = await browser!.newContext({ locale: 'en-US', timezoneId: 'UTC' });
      await context.route(/fonts\.googleapis\.com/, (route) => route.abort());
      const page = await context.newPage();
      await page.goto(`${world.base}/app/sign-in?org=${world.tenant.organizationId}`);
      await page.getByRole('link', { name: 'Sign in with Acme Login' }).click();
      await page.waitForURL((url) => url.origin === provider.issuer);
      await page.locator('input[name="login"]').fill('stranger@elsewhere.example');
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page
        .getByText('Your address has not been invited to this organization.', { exact: false })
        .waitFor();
      expect(new URL(page.url()).hash).toBe('');
      expect(await page.evaluate(() => sessionStorage.getItem('sdcs.token'))).toBeNull();
      await context.close();
    });
  },
);
