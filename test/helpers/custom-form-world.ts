import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { api } from './app.ts';
import { collectErrors } from './browser.ts';
import { assignSites } from './factories.ts';
import { createWebAppWorld, setPassword, signIn, type WebAppWorld } from './web-app-world.ts';

// What the custom activity form browser tests (issue 51) share: the web app's world with a
// collector who may enter at its site, the fuel definition whose uiCode they replace, a custom
// fuel form, opening a period's entry screen, and the fuel activities the service stored.

export const PASSWORD = 'correct horse battery';

/** A fuel purchase form of the definition's own: a fuel type list, Litres, and a hint of the mass. */
export const FUEL_FORM = `const fuel = inputs.find((i) => i.name === 'fuel');
return h('div', { class: 'fuel-form' },
  h('label', { for: 'f' }, 'Fuel type'),
  h('select', { id: 'f', value: values.fuel ?? '', onChange: (e) => set('fuel', e.target.value) },
    h('option', { value: '' }, 'Choose'),
    fuel.editor.options.map((o) => h('option', { value: o.value }, o.label))),
  h('label', { for: 'l' }, 'Litres'),
  h('input', { id: 'l', inputmode: 'decimal', value: values.litres ?? '', onInput: (e) => set('litres', e.target.value) }),
  values.litres ? h('p', null, 'About ', t.number(Number(values.litres) * 0.84, { maximumFractionDigits: 1 }), ' kg of fuel') : null);`;

export interface CustomFormWorld {
  world: WebAppWorld;
  /** The fuel purchase definition's id. */
  definitionId: string;
}

/** The web app's world; its collector has a password and the world's site. */
export async function createCustomFormWorld(): Promise<CustomFormWorld> {
  const world = await createWebAppWorld();
  const collector = world.tenant.collector;
  await setPassword(world.t, collector.userId, PASSWORD);
  await assignSites(world.t, world.tenant.organizationId, collector.userId, [world.site]);
  const listed = await api(world.t, 'GET', '/activity-definitions', { token: world.tenant.owner.token });
  const items = (listed.body.items ?? listed.body) as { id: string; key: string }[];
  return { world, definitionId: items.find((d) => d.key === 'fuel-purchase')!.id };
}

/** Replaces the fuel definition's uiCode through the API, as an owner would. */
export async function setUiCode({ world, definitionId }: CustomFormWorld, uiCode: string): Promise<void> {
  const got = await api(world.t, 'GET', `/activity-definitions/${definitionId}`, {
    token: world.tenant.owner.token,
  });
  const { name, description, calcCode, inputs, metadataSchema, unitId } = got.body;
  const put = await api(world.t, 'PUT', `/activity-definitions/${definitionId}`, {
    token: world.tenant.owner.token,
    body: { name, description, uiCode, calcCode, inputs, metadataSchema, unitId },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
}

/** Signs the collector in (a new context) and opens the entry screen of a period. */
export async function openEntry(
  browser: Browser,
  world: WebAppWorld,
  periodUnit: number,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    locale: 'en-GB',
    timezoneId: 'UTC',
    viewport: { width: 1280, height: 900 },
    serviceWorkers: 'allow',
  });
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  const errors = collectErrors(page);
  await signIn(page, world.base, world.tenant.collector.email, PASSWORD);
  await page.goto(`${world.base}/app/enter/${world.form.id}/${world.site}/${world.year}/${periodUnit}`);
  await page.getByRole('button', { name: 'Add Fuel purchase' }).waitFor();
  return { context, page, errors };
}

/** The fuel activities stored for a period of the world's form and site. */
export async function storedFuel(
  world: WebAppWorld,
  periodUnit: number,
): Promise<{ input: Record<string, unknown>; value: number }[]> {
  const res = await api(
    world.t,
    'GET',
    `/activities?formId=${world.form.id}&key=fuel&siteIds=${world.site}&years=${world.year}&periodUnits=${periodUnit}`,
    { token: world.tenant.owner.token },
  );
  return res.body.activities;
}
