import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActivityWorld, createActivityWorld } from '../../../test/helpers/activity-world.ts';
import { useTestApp } from '../../../test/helpers/app.ts';
import {
  buildActivityForm,
  buildForm,
  buildFormSites,
  buildSite,
  buildSubmission,
  buildTenant,
} from '../../../test/helpers/builders.ts';
import type { Tenant } from '../../../test/helpers/factories.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
let w: ActivityWorld;
let tenant: Tenant;
let other: Tenant;
let region: string;
let alpha: string;
let beta: string;
let zeta: string;

afterAll(() => shutdownSandbox());

const list = (query: string, token = tenant.owner.token) => w.list(query, token);
/** Activities as `site year/period value` strings, in answer order. */
const brief = (activities: { siteName: string; year: number; periodUnit: number; value: number }[]) =>
  activities.map((a) => `${a.siteName} ${a.year}/${a.periodUnit} ${a.value}`);

beforeAll(async () => {
  // Region (the viewer's) holds Beta and alpha; zeta stands alone. The form is active on all but Region.
  tenant = await buildTenant(t);
  other = await buildTenant(t);
  const parent = await buildSite(t, { tenant, name: 'Region', assign: ['viewer'] });
  region = parent.id;
  beta = (await buildSite(t, { parent, name: 'Beta' })).id;
  alpha = (await buildSite(t, { parent, name: 'alpha' })).id;
  w = await createActivityWorld(t, {
    tenant,
    site: { name: 'zeta', assign: [] },
    others: [alpha, beta],
    definition: {
      key: 'trips',
      inputs: [{ name: 'km', type: 'number', required: true }],
      calcCode: 'return inputs.km',
    },
    periodType: 'QUARTERLY',
    moreElements: [{ key: 'n', label: 'N', type: 'NUMBER' }],
    years: [2024, 2025],
  });
  zeta = w.site;
  const enter = (siteId: string, year: number, periodUnit: number, kms: number[]) =>
    w.enter(
      periodUnit,
      kms.map((km) => ({ km })),
      { siteId, year },
    );
  await enter(zeta, 2025, 1, [1]);
  await enter(beta, 2025, 2, [2, 3]);
  await enter(beta, 2024, 4, [4]);
  await enter(alpha, 2025, 1, [5]);
  await enter(alpha, 2024, 1, [6]);
});

describe('GET /activities', () => {
  it('lists by site name (letter case ignored), year, period and list position', async () => {
    const res = await list('');

    expect(res.status).toBe(200);
    expect(brief(res.json().activities)).toEqual([
      'alpha 2024/1 6',
      'alpha 2025/1 5',
      'Beta 2024/4 4',
      'Beta 2025/2 2',
      'Beta 2025/2 3',
      'zeta 2025/1 1',
    ]);
    expect(res.body.pagination).toEqual({ total: 6, limit: 100, offset: 0, hasMore: false });
    expect(res.body.noActivity).toEqual([]);
  });

  it('pages with limit and offset over a stable order', async () => {
    const pages = [await list('&limit=4'), await list('&limit=4&offset=4'), await list('&limit=4&offset=8')];

    expect(pages.map((p) => p.body.pagination.hasMore)).toEqual([true, false, false]);
    expect(pages.flatMap((p) => brief(p.json().activities))).toEqual(
      brief((await list('')).json().activities),
    );
    expect(pages[2]!.body.activities).toEqual([]);
  });

  it('agrees with itself for every page size and offset, under every filter, with the right total', async () => {
    for (const filter of ['', '&years=2025', `&siteIds=${beta},${zeta}`, '&periodUnits=1']) {
      const all = (await list(filter)).json();
      expect(all.pagination.total).toBe(all.activities.length);
      for (let limit = 1; limit <= 3; limit++) {
        const seen: string[] = [];
        for (let offset = 0; offset <= all.activities.length; offset += limit) {
          const page = (await list(`${filter}&limit=${limit}&offset=${offset}`)).json();
          expect(page.pagination.total).toBe(all.pagination.total);
          expect(page.pagination.hasMore).toBe(offset + limit < all.pagination.total);
          seen.push(...brief(page.activities));
        }
        expect(seen).toEqual(brief(all.activities));
      }
    }
  });

  it('shows only the sites the caller can read (assigned sites and their descendants)', async () => {
    const res = await list('', tenant.viewer.token);

    expect(res.status).toBe(200);
    expect(res.json().activities.map((a) => a.siteName)).toEqual(['alpha', 'alpha', 'Beta', 'Beta', 'Beta']);
    expect(res.body.pagination.total).toBe(5);
  });

  it('filters by siteIds, years and periodUnits, comma-separated or repeated', async () => {
    expect(brief((await list(`&siteIds=${alpha},${zeta}&years=2025`)).json().activities)).toEqual([
      'alpha 2025/1 5',
      'zeta 2025/1 1',
    ]);
    expect(brief((await list(`&siteIds=${beta}&siteIds=${zeta}&periodUnits=2,4`)).json().activities)).toEqual(
      ['Beta 2024/4 4', 'Beta 2025/2 2', 'Beta 2025/2 3'],
    );
    expect(brief((await list('&years=2024&years=2023')).json().activities)).toEqual([
      'alpha 2024/1 6',
      'Beta 2024/4 4',
    ]);
  });

  it('hides the activities of a form-site that is no longer active', async () => {
    await buildFormSites(t, { form: w.form, sites: [alpha, zeta], years: [2024] });

    const res = await list('&years=2024');

    expect(brief(res.json().activities)).toEqual(['alpha 2024/1 6']);
    await buildFormSites(t, { form: w.form, sites: [alpha, beta, zeta], years: [2024] });
  });

  it('answers 400 naming the parameter for malformed filters', async () => {
    const cases: [string, string][] = [
      ['&siteIds=nope', 'siteIds'],
      [`&siteIds=${alpha},`, 'siteIds'],
      ['&siteIds=00000000-0000-4000-8000-000000000000', 'siteIds'],
      ['&years=20x5', 'years'],
      ['&years=1800', 'years'],
      ['&periodUnits=5', 'periodUnits'],
      ['&periodUnits=1.5', 'periodUnits'],
      ['&limit=0', 'query.limit'],
      ['&limit=1001', 'query.limit'],
      ['&offset=-1', 'query.offset'],
      ['&colour=red', 'query.colour'],
    ];
    for (const [query, path] of cases) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      // The service names the parameter (`siteIds`); validation names it in the query (`query.siteIds.0`).
      const paths: string[] = res.body.issues?.map((i: any) => i.path) ?? [];
      expect(
        paths.some((p) => p === path || p === `query.${path}` || p.startsWith(`query.${path}.`)),
        `${query}: ${paths.join(', ')}`,
      ).toBe(true);
    }
  });

  it('answers 400 when formId or key is missing, or the key names another type of element', async () => {
    const missing = await w.api.get(`/activities?formId=${w.form.id}`, { token: tenant.owner.token });
    const number = await w.api.get(`/activities?formId=${w.form.id}&key=n`, { token: tenant.owner.token });

    expect(missing.status).toBe(400);
    expect(missing.body.issues).toMatchObject([{ path: 'query.key' }]);
    expect(number.status).toBe(400);
    expect(number.body.issues).toMatchObject([{ path: 'key', message: expect.stringMatching(/NUMBER/) }]);
  });

  it('answers 404 for an unknown, malformed or other tenant’s form, and an unknown key', async () => {
    const foreign = await buildForm(t, { tenant: other });
    const urls = [
      '/activities?formId=00000000-0000-4000-8000-000000000000&key=trips',
      '/activities?formId=not-a-uuid&key=trips',
      `/activities?formId=${foreign.id}&key=amount`,
      `/activities?formId=${w.form.id}&key=nothing`,
    ];
    for (const url of urls) {
      const res = await w.api.get(url, { token: tenant.owner.token });
      expect(res.status, url).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('finds an element with a key of its own by its activity definition’s key too', async () => {
    const custom = await buildActivityForm(t, {
      tenant,
      definition: { key: 'commute' },
      key: 'my-commute',
      sites: [zeta],
    });
    await buildSubmission(t, {
      form: custom.form,
      site: zeta,
      values: [{ elementKey: 'my-commute', periodUnit: 1, value: [{ amount: 4 }] }],
    });

    const byElementKey = await w.api.get(`/activities?formId=${custom.form.id}&key=my-commute`, {
      token: tenant.owner.token,
    });
    const byDefinitionKey = await w.api.get(`/activities?formId=${custom.form.id}&key=commute`, {
      token: tenant.owner.token,
    });

    expect(byElementKey.json().activities.map((a) => a.value)).toEqual([8]);
    expect(byDefinitionKey.json().activities).toEqual(byElementKey.json().activities);
  });

  it('answers 403 for a site of the organization the caller cannot read', async () => {
    const res = await list(`&siteIds=${alpha},${zeta}`, tenant.viewer.token);

    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });

  it('matches siteIds exactly: a parent site does not bring in its sub-sites', async () => {
    for (const token of [tenant.owner.token, tenant.viewer.token]) {
      const parent = await list(`&siteIds=${region}`, token);
      expect(parent.status).toBe(200);
      expect(parent.body.activities).toEqual([]);
      expect(parent.body.pagination.total).toBe(0);
    }
    const child = await list(`&siteIds=${beta}`, tenant.viewer.token);
    expect(brief(child.json().activities)).toEqual(['Beta 2024/4 4', 'Beta 2025/2 2', 'Beta 2025/2 3']);
  });

  it('answers 400 naming siteIds for an unknown site or another organization’s site', async () => {
    const foreign = (await buildSite(t, { tenant: other, name: 'Foreign' })).id;
    for (const siteIds of ['00000000-0000-4000-8000-000000000000', foreign, `${alpha},${foreign}`]) {
      const res = await list(`&siteIds=${siteIds}`);
      expect(res.status, siteIds).toBe(400);
      expect(res.body.issues, siteIds).toMatchObject([{ path: 'siteIds' }]);
    }
  });

  it('lists the no-activity markers under the same filters and scope', async () => {
    for (const [siteId, periodUnit] of [
      [zeta, 3],
      [alpha, 3],
      [alpha, 4],
    ] as const) {
      const res = await w.api.post('/activities/no-activity/mark', {
        token: tenant.owner.token,
        body: { formId: w.form.id, key: 'trips', siteId, year: 2025, periodUnit },
      });
      expect(res.status).toBe(200);
    }

    const all = await list('&periodUnits=3,4');
    const viewer = await list('&years=2025&periodUnits=3', tenant.viewer.token);

    expect(all.json().noActivity.map((m) => `${m.siteName} ${m.periodUnit}`)).toEqual([
      'alpha 3',
      'alpha 4',
      'zeta 3',
    ]);
    expect(viewer.json().noActivity.map((m) => `${m.siteName} ${m.periodUnit}`)).toEqual(['alpha 3']);
  });
});

describe('the OpenAPI document of GET /activities', () => {
  it('declares limit and offset optional, with their defaults, and formId and key required', async () => {
    type Param = { name: string; in: string; required?: boolean; schema: Record<string, unknown> };
    const doc = t.app.swagger() as unknown as { paths: Record<string, { get: { parameters: Param[] } }> };
    const params = doc.paths['/api/v1/activities']!.get.parameters;
    const param = (name: string) => params.find((p) => p.name === name && p.in === 'query');
    expect(param('limit')).toMatchObject({ schema: { default: 100, minimum: 1, maximum: 1000 } });
    expect(param('offset')).toMatchObject({ schema: { default: 0, minimum: 0 } });
    expect(param('limit')?.required).not.toBe(true);
    expect(param('offset')?.required).not.toBe(true);
    expect(param('formId')?.required).toBe(true);
    expect(param('key')?.required).toBe(true);
  });
});
