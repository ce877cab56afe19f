import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { hashPassword } from '../../src/lib/secrets.ts';
import { readOutbox } from '../../src/mail/outbox.ts';
import { api, openTestDatabase, type TestContext, testConfig } from './app.ts';
import {
  activateForm,
  assignSites,
  createActivityDefinition,
  createSite,
  createTenant,
  type Tenant,
} from './factories.ts';

/**
 * The world of the web app's browser tests: the real service listening on a loopback port whose
 * address is also its PUBLIC_URL (so e-mailed links and upload addresses lead to it), an
 * organization with a plant, and a MONTHLY energy form of last year (every period past): an
 * electricity NUMBER in kWh, a fuel ACTIVITY (litres × 2.68 for diesel, × 2.31 for petrol), an
 * invoice FILE and a note.
 */
export interface WebAppWorld {
  t: TestContext;
  base: string;
  year: number;
  tenant: Tenant;
  site: string;
  siteName: string;
  form: { id: string; name: string; elements: { id: string; key: string }[] };
  units: Record<string, string>;
  outbox: () => ReturnType<typeof readOutbox>;
  close: () => Promise<void>;
}

export const FUEL_FACTORS = { diesel: 2.68, petrol: 2.31 };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** `overrides`: configuration of a test's own (OIDC over http, say). */
export async function createWebAppWorld(overrides: Partial<Config> = {}): Promise<WebAppWorld> {
  const opened = await openTestDatabase();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const config = testConfig({
    publicUrl: base,
    dataDir: join(tmpdir(), `sdcs-web-app-${randomBytes(6).toString('hex')}`),
    ...overrides,
  });
  mkdirSync(config.dataDir, { recursive: true });
  const app: FastifyInstance = await buildApp({ database: opened.database, config });
  await app.listen({ port, host: '127.0.0.1' });
  const t: TestContext = {
    app,
    database: opened.database,
    config,
    ...(opened.url ? { url: opened.url } : {}),
  };

  const year = new Date().getUTCFullYear() - 1;
  const tenant = await createTenant(t, 'Acme Industries');
  const rows = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  const units: Record<string, string> = Object.fromEntries(rows.map((r) => [r.symbol, r.id]));
  const siteName = 'Lyon plant';
  const site = await createSite(t, tenant.organizationId, { name: siteName, code: 'LYO' });
  await assignSites(t, tenant.organizationId, tenant.manager.userId, [site]);
  const fuel = await createActivityDefinition(t, tenant.organizationId, {
    key: 'fuel-purchase',
    name: 'Fuel purchase',
    inputs: [
      { name: 'fuel', type: 'string', required: true },
      { name: 'litres', type: 'number', required: true },
    ],
    calcCode: `return inputs.litres * (inputs.fuel === 'diesel' ? ${FUEL_FACTORS.diesel} : ${FUEL_FACTORS.petrol})`,
  });
  // The select editor of the fuel input (the factory stores inputs as given, without editors).
  await t.database.system((tx) =>
    tx
      .updateTable('activity_definitions')
      .set({
        inputs: JSON.stringify([
          {
            name: 'fuel',
            type: 'string',
            required: true,
            exportName: 'fuel',
            editor: {
              type: 'select',
              options: [
                { label: 'Diesel', value: 'diesel' },
                { label: 'Petrol', value: 'petrol' },
              ],
            },
          },
          { name: 'litres', type: 'number', required: true, exportName: 'litres', example: '120' },
        ]),
        // No component of its own: the generic form (web-app.custom-form.browser.test.ts sets one).
        ui_code: '',
      })
      .where('id', '=', fuel)
      .execute(),
  );
  const created = await api(t, 'POST', '/forms', {
    token: tenant.owner.token,
    body: {
      name: 'Energy and fuel',
      periodType: 'MONTHLY',
      dueDays: 10,
      metadata: { source: 'energy' },
      elements: [
        {
          key: 'electricity',
          label: 'Electricity used',
          type: 'NUMBER',
          unitId: units['kWh'],
          required: true,
        },
        {
          key: 'fuel',
          label: 'Fuel purchases',
          type: 'ACTIVITY',
          activityDefinitionId: fuel,
          required: true,
        },
        { key: 'invoice', label: 'Energy invoice', type: 'FILE' },
        { key: 'note', label: 'Note for the reviewer', type: 'TEXT' },
      ],
    },
  });
  if (created.status !== 200) throw new Error(`form not created: ${JSON.stringify(created.body)}`);
  const form = created.body as { id: string; name: string; elements: { id: string; key: string }[] };
  await activateForm(t, tenant, form.id, [site], [year]);
  return {
    t,
    base,
    year,
    tenant,
    site,
    siteName,
    form,
    units,
    // E-mails are jobs (decision 232): the queued ones are sent before the outbox is read.
    outbox: async () => {
      await app.jobs.drain();
      return readOutbox(join(config.dataDir, 'outbox'));
    },
    close: async () => {
      await app.close();
      await opened.drop();
    },
  };
}

/**
 * Signs in through the app's sign-in screen, in whatever language the browser gets it (the fields
 * by their ids), and waits for the home.
 */
export async function signIn(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/app`);
  await page.locator('#signin-email').fill(email);
  await page.locator('#signin-password').fill(password);
  await page.locator('form button[type="submit"]').click();
  await page.locator('#reporting-year').waitFor();
}

/** Sets a password for a test member (factories create members without one). */
export async function setPassword(t: TestContext, userId: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  await t.database.system((tx) =>
    tx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute(),
  );
}
