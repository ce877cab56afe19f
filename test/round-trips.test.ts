import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, useTestApp } from './helpers/app.ts';
import {
  activateForm,
  createActivityDefinition,
  createForm,
  createSite,
  createTenant,
} from './helpers/factories.ts';

const t = useTestApp();

/**
 * What a read costs in round trips to the database, counted where every statement leaves the
 * service (node-postgres' client on a server, PGlite's query and exec when embedded): opening
 * the transaction (BEGIN, the credential and the tenant settings in one), the read itself, COMMIT.
 */
describe('round trips of a read', () => {
  let sent = 0;
  beforeEach(() => {
    const count = <T extends object, K extends keyof T>(target: T, method: K) => {
      const original = target[method] as (...args: unknown[]) => unknown;
      vi.spyOn(target, method as never).mockImplementation(function (this: unknown, ...args: unknown[]) {
        sent++;
        return original.apply(this, args);
      } as never);
    };
    count(pg.Client.prototype, 'query');
    count(PGlite.prototype, 'query');
    count(PGlite.prototype, 'exec');
  });
  afterEach(() => vi.restoreAllMocks());

  async function roundTrips(url: string, token: string) {
    sent = 0;
    const res = await api(t, 'GET', url, { token });
    expect(res.status, `${url}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(200);
    return { count: sent, body: res.body };
  }

  it('GET /sites, /dataset-items, /form-submissions, /activities and /me take at most three', async () => {
    const tenant = await createTenant(t);
    const site = await createSite(t, tenant.organizationId);
    const definition = await createActivityDefinition(t, tenant.organizationId, {
      key: 'fuel',
      calcCode: 'return { value: inputs.litres * 2 };',
      inputs: [{ name: 'litres', type: 'number', required: true }],
    });
    const form = await createForm(t, tenant, {
      periodType: 'MONTHLY',
      elements: [
        { key: 'fuel', label: 'Fuel', type: 'ACTIVITY', activityDefinitionId: definition },
        { key: 'n', label: 'N', type: 'NUMBER' },
      ],
    });
    await activateForm(t, tenant, form.id, [site], [2025]);
    const submitted = await api(t, 'POST', '/form-submissions', {
      token: tenant.apiKey,
      body: {
        formId: form.id,
        siteId: site,
        year: 2025,
        values: [
          { elementKey: 'n', periodUnit: 1, value: 3 },
          { elementKey: 'fuel', periodUnit: 1, value: [{ litres: 2 }, { litres: 5 }] },
        ],
      },
    });
    expect(submitted.status).toBe(200);

    const reads: [string, (body: any) => void][] = [
      ['/sites', (b) => expect(b.items ?? b).toBeTruthy()],
      ['/dataset-items', (b) => expect(b).toBeTruthy()],
      [`/form-submissions?formId=${form.id}`, (b) => expect(b.items[0].values).toHaveLength(2)],
      [
        `/activities?formId=${form.id}&key=fuel`,
        (b) => expect(b.activities.map((a: any) => a.value)).toEqual([4, 10]),
      ],
      ['/me', (b) => expect(b.organization.id).toBe(tenant.organizationId)],
    ];
    for (const [url, check] of reads) {
      const { count, body } = await roundTrips(url, tenant.apiKey);
      check(body);
      expect(count, url).toBeLessThanOrEqual(3);
      // Counting works: a read sends at least its opening, its statement and COMMIT.
      expect(count, url).toBeGreaterThanOrEqual(3);
    }
  });
});
