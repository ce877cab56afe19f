import { describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { errorText } from '../../../test/helpers/errors.ts';
import { activateForm, assignSites } from '../../../test/helpers/factories.ts';
import { type Point, useTargetWorld } from '../../../test/helpers/target-world.ts';

/** CHILDREN breakdowns, against figures computed by hand (the world: test/helpers/target-world.ts). */
const t = useTestApp();
const w = useTargetWorld(t);
const { sites, ind, board, data, submit } = w;

describe('CHILDREN breakdowns', () => {
  it('one series per child of the filter’s site, a plant added later included', async () => {
    const id = await board(
      { siteIds: [sites.group], startYear: 2025, endYear: 2025 },
      [{ type: 'BAR', indicatorIds: [ind.elec], config: { sites: 'CHILDREN' } }],
      { isPublic: true, publicCanFilterSites: true },
    );
    const before = await data(id);
    expect(
      before.data[0].series.map((s: { siteName: string; total: Point }) => [s.siteName, s.total.value]),
    ).toEqual([
      ['Plant A', 500],
      ['Plant B', 300],
    ]);

    // A plant added through the API, with 2025 data: it shows without touching the dashboard.
    const created = await api(t, 'POST', '/sites', {
      token: w.token,
      body: { name: 'Plant C', parentId: sites.group },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const plantC = created.body.id as string;
    // (PUT /form-sites sets the form's whole site list.)
    await activateForm(t, w.tenant, w.formId, [...Object.values(sites), plantC], [2024, 2025, 2026]);
    await submit(plantC, 2025, [['elec', 2, 70]]);
    const after = await data(id);
    expect(
      after.data[0].series.map((s: { siteName: string; total: Point }) => [s.siteName, s.total.value]),
    ).toEqual([
      ['Plant A', 500],
      ['Plant B', 300],
      ['Plant C', 70],
    ]);

    // The public link: the same children (never Other, outside the filter's group)…
    const open = await api(t, 'GET', `/public/dashboards/${id}`);
    expect(open.status).toBe(200);
    expect(open.body.data[0].series.map((s: { siteName: string }) => s.siteName)).toEqual([
      'Plant A',
      'Plant B',
      'Plant C',
    ]);
    // …and a viewer's pick is broken down by its own children (a plant without any: itself).
    const picked = await api(t, 'GET', `/public/dashboards/${id}?siteIds=${sites.plantB}`);
    expect(
      picked.body.data[0].series.map((s: { siteName: string; total: Point }) => [s.siteName, s.total.value]),
    ).toEqual([['Plant B', 300]]);
    const outside = await api(t, 'GET', `/public/dashboards/${id}?siteIds=${sites.other}`);
    expect(outside.status).toBe(400);
  });

  it('without filter sites: the organization’s top-level sites; a member limited to a plant sees that plant only', async () => {
    const id = await board({ startYear: 2025, endYear: 2025 }, [
      { type: 'TABLE', indicatorIds: [ind.elec], config: { sites: 'CHILDREN' } },
    ]);
    const all = await data(id);
    // Group: 500 + 300 + 70 (Plant C, added above) = 870; Other: 9000.
    expect(
      all.data[0].series.map((s: { siteName: string; total: Point }) => [s.siteName, s.total.value]),
    ).toEqual([
      ['Group', 870],
      ['Other', 9000],
    ]);
    const grouped = await board({ siteIds: [sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'TABLE', indicatorIds: [ind.elec], config: { sites: 'CHILDREN' } },
    ]);
    await assignSites(t, w.tenant.organizationId, w.tenant.collector.userId, [sites.plantA]);
    for (const board of [id, grouped]) {
      const mine = await data(board, w.tenant.collector.token);
      expect(
        mine.data[0].series.map((s: { siteName: string; total: Point }) => [s.siteName, s.total.value]),
      ).toEqual([['Plant A', 500]]);
    }
  });

  it('a manager limited to Plant A publishes CHILDREN of Plant A only, never of the group', async () => {
    await assignSites(t, w.tenant.organizationId, w.tenant.manager.userId, [sites.plantA]);
    const as = w.tenant.manager.token;
    const refused = await api(t, 'POST', '/dashboards', {
      token: as,
      body: { name: 'Group by plant', isPublic: true, globalFilter: { siteIds: [sites.group] } },
    });
    expect(refused.status).toBe(403);
    const mine = await api(t, 'POST', '/dashboards', {
      token: as,
      body: {
        name: 'Plant A',
        isPublic: true,
        globalFilter: { siteIds: [sites.plantA], startYear: 2025, endYear: 2025 },
      },
    });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    const widget = await api(t, 'POST', `/dashboards/${mine.body.id}/widgets`, {
      token: as,
      body: { type: 'BAR', title: 'W', indicatorIds: [ind.elec], config: { sites: 'CHILDREN' } },
    });
    expect(widget.status, JSON.stringify(widget.body)).toBe(200);
    const open = await api(t, 'GET', `/public/dashboards/${mine.body.id}`);
    expect(
      open.body.data[0].series.map((s: { siteName: string; total: Point }) => [s.siteName, s.total.value]),
    ).toEqual([['Plant A', 500]]);
  });

  it('refuses an unknown config.sites with a 400 naming the field', async () => {
    const id = await board({}, []);
    const res = await api(t, 'POST', `/dashboards/${id}/widgets`, {
      token: w.token,
      body: { type: 'BAR', title: 'W', indicatorIds: [ind.elec], config: { sites: 'CHILD' } },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.issues)).toContain('config.sites');
    expect(errorText(res.body)).toMatch(/TOTAL|BREAKDOWN|CHILDREN/);
  });
});
