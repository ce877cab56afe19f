import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  assignSites,
  createActivityDefinition,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
let tenant: Tenant;
let other: Tenant;
let site: string;
let unassigned: string;
let form: Awaited<ReturnType<typeof createForm>>;

afterAll(() => shutdownSandbox());

const body = (overrides: Record<string, unknown> = {}) => ({
  formId: form.id,
  key: 'waste',
  siteId: site,
  year: 2025,
  periodUnit: 1,
  ...overrides,
});
const mark = (b: unknown, token = tenant.collector.token) =>
  api(t, 'POST', '/activities/no-activity/mark', { token, body: b });
const unmark = (b: unknown, token = tenant.collector.token) =>
  api(t, 'POST', '/activities/no-activity/unmark', { token, body: b });

beforeAll(async () => {
  tenant = await createTenant(t);
  other = await createTenant(t);
  site = await createSite(t, tenant.organizationId);
  unassigned = await createSite(t, tenant.organizationId);
  for (const member of [tenant.collector, tenant.viewer]) {
    await assignSites(t, tenant.organizationId, member.userId, [site]);
  }
  const definition = await createActivityDefinition(t, tenant.organizationId, { key: 'waste' });
  form = await createForm(t, tenant, {
    periodType: 'QUARTERLY',
    elements: [
      { label: 'Waste', type: 'ACTIVITY', activityDefinitionId: definition },
      { key: 'n', label: 'N', type: 'NUMBER' },
    ],
  });
  await activateForm(t, tenant, form.id, [site, unassigned], [2025]);
});

describe('POST /activities/no-activity/mark and /unmark', () => {
  it('marks a period once: marking again answers the same id', async () => {
    const first = await mark(body({ periodUnit: 2 }));
    const again = await mark(body({ periodUnit: 2 }));

    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true, id: expect.any(String) });
    expect(again.body).toEqual(first.body);
  });

  it('unmarks, answering the removed marker’s id; unmarking again is idempotent, like marking', async () => {
    const marked = await mark(body({ periodUnit: 3 }));

    const removed = await unmark(body({ periodUnit: 3 }));
    const again = await unmark(body({ periodUnit: 3 }));

    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, id: marked.body.id });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(removed.body);
    const never = await unmark(body({ periodUnit: 4 }));
    expect(never.status).toBe(200);
    expect(never.body).toEqual({ success: true, id: (await mark(body({ periodUnit: 4 }))).body.id });
  });

  it('refuses to mark a period that has activities', async () => {
    const entered = await api(t, 'POST', '/form-submissions', {
      token: tenant.collector.token,
      body: {
        formId: form.id,
        siteId: site,
        year: 2025,
        values: [{ elementKey: 'waste', periodUnit: 4, value: [{ amount: 1 }] }],
      },
    });
    expect(entered.status).toBe(200);

    const res = await mark(body({ periodUnit: 4 }));

    expect(res.status).toBe(400);
    expect(res.body.issues).toMatchObject([
      { path: 'periodUnit', message: expect.stringMatching(/activities/) },
    ]);
  });

  it('answers 400 naming the field for what the request names wrongly', async () => {
    const foreign = await createForm(t, other);
    const otherSite = await createSite(t, other.organizationId);
    const cases: [Record<string, unknown>, string][] = [
      [{ formId: '00000000-0000-4000-8000-000000000000' }, 'formId'],
      [{ formId: 'nope' }, 'formId'],
      [{ formId: foreign.id }, 'formId'],
      [{ key: 'missing' }, 'key'],
      [{ key: 'n' }, 'key'],
      [{ siteId: otherSite }, 'siteId'],
      [{ siteId: 'nope' }, 'siteId'],
      [{ periodUnit: 5 }, 'periodUnit'],
      [{ year: 2024 }, 'year'],
      [{ year: '2025' }, 'year'],
      [{ extra: true }, 'extra'],
    ];
    for (const [overrides, path] of cases) {
      for (const call of [mark, unmark]) {
        const res = await call(body(overrides));
        expect(res.status, JSON.stringify(overrides)).toBe(400);
        expect(
          res.body.issues?.map((i: any) => i.path),
          JSON.stringify(overrides),
        ).toContain(path);
      }
    }
    const missing = await mark({ formId: form.id, key: 'waste', siteId: site, year: 2025 });
    expect(missing.body.issues).toMatchObject([{ path: 'periodUnit' }]);
  });

  it('answers 403 to viewers, and for a site outside the collector’s scope', async () => {
    const viewer = await mark(body(), tenant.viewer.token);
    const elsewhere = await mark(body({ siteId: unassigned }));
    const elsewhereUnmark = await unmark(body({ siteId: unassigned }));

    expect(viewer.status).toBe(403);
    expect(elsewhere.status).toBe(403);
    expect(elsewhereUnmark.status).toBe(403);
  });

  it('keeps the site from being deleted while it has a marker', async () => {
    const doomed = await createSite(t, tenant.organizationId);
    await activateForm(t, tenant, form.id, [site, unassigned, doomed], [2025]);
    expect((await mark(body({ siteId: doomed }), tenant.owner.token)).status).toBe(200);

    const res = await api(t, 'DELETE', `/sites/${doomed}`, { token: tenant.owner.token });

    expect(res.status).toBe(400);
  });
});
