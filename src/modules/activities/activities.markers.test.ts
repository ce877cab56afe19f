import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActivityWorld, createActivityWorld } from '../../../test/helpers/activity-world.ts';
import { useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
let w: ActivityWorld;
let other: Tenant;

afterAll(() => shutdownSandbox());

const body = (overrides: Record<string, unknown> = {}) => ({
  formId: w.form.id,
  key: 'waste',
  siteId: w.site,
  year: 2025,
  periodUnit: 1,
  ...overrides,
});
const mark = (b: unknown, token = w.tenant.collector.token) =>
  w.api.post('/activities/no-activity/mark', { token, body: b });
const unmark = (b: unknown, token = w.tenant.collector.token) =>
  w.api.post('/activities/no-activity/unmark', { token, body: b });

beforeAll(async () => {
  // The world's site (the collector's and viewer's) and one nobody is assigned to.
  w = await createActivityWorld(t, {
    definition: { key: 'waste' },
    periodType: 'QUARTERLY',
    others: [{}],
    moreElements: [{ key: 'n', label: 'N', type: 'NUMBER' }],
  });
  other = await createTenant(t);
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
    const entered = await w.submit([w.entry(4, [{ amount: 1 }])]);
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
    const missing = await mark({ formId: w.form.id, key: 'waste', siteId: w.site, year: 2025 });
    expect(missing.body.issues).toMatchObject([{ path: 'periodUnit' }]);
  });

  it('answers 403 to viewers, and for a site outside the collector’s scope', async () => {
    const unassigned = w.others[0];
    const viewer = await mark(body(), w.tenant.viewer.token);
    const elsewhere = await mark(body({ siteId: unassigned }));
    const elsewhereUnmark = await unmark(body({ siteId: unassigned }));

    expect(viewer.status).toBe(403);
    expect(elsewhere.status).toBe(403);
    expect(elsewhereUnmark.status).toBe(403);
  });

  it('keeps the site from being deleted while it has a marker', async () => {
    const doomed = await createSite(t, w.tenant.organizationId);
    await activateForm(t, w.tenant, w.form.id, [w.site, ...w.others, doomed], [2025]);
    expect((await mark(body({ siteId: doomed }), w.tenant.owner.token)).status).toBe(200);

    const res = await w.api.delete(`/sites/${doomed}`, { token: w.tenant.owner.token });

    expect(res.status).toBe(400);
  });
});
