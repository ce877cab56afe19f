import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/helpers/app.ts';
import { useClockTestApp } from '../../../test/helpers/clock-app.ts';
import {
  activateForm,
  addMember,
  assignSites,
  createActivityDefinition,
  createForm,
  createSite,
  createTenant,
  type Member,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';
import { verifyCompleteness } from './completeness.kept.ts';

/**
 * A monthly form (energy NUMBER and waste ACTIVITY required, a note not required, due 10 days
 * after each month) on four plants in 2024, with March:
 * - Plant 1 complete, entered on 5 April (on time: due 11 April);
 * - Plant 2 partial (energy only);
 * - Plant 3 missing;
 * - Plant 4 complete (energy, and waste marked as no activity), entered today (late).
 * And a second form with only an ACTIVITY element, marked as no activity for Plant 1 in March.
 * The clock says 1 June 2024.
 */
const t = useClockTestApp(new Date('2024-06-01T00:00:00Z'));
let tenant: Tenant;
let collector2: Member;
const plant: string[] = [];
let form: Awaited<ReturnType<typeof createForm>>;
let quiet: Awaited<ReturnType<typeof createForm>>;

afterAll(() => shutdownSandbox());

const submit = (siteId: string, values: unknown[], token = tenant.owner.token) =>
  api(t, 'POST', '/form-submissions', { token, body: { formId: form.id, siteId, year: 2024, values } });
const completeness = (query: string, token = tenant.viewer.token) =>
  api(t, 'GET', `/completeness?${query}`, { token });

beforeAll(async () => {
  tenant = await createTenant(t);
  const org = tenant.organizationId;
  collector2 = await addMember(t, org, 'COLLECTOR');
  for (const n of [1, 2, 3, 4]) plant.push(await createSite(t, org, { name: `Plant ${n}` }));
  await assignSites(t, org, tenant.manager.userId, plant);
  await assignSites(t, org, tenant.viewer.userId, plant);
  await assignSites(t, org, tenant.collector.userId, [plant[1]!, plant[2]!]);
  await assignSites(t, org, collector2.userId, [plant[2]!]);
  const waste = await createActivityDefinition(t, org, { key: 'waste' });
  const trips = await createActivityDefinition(t, org, { key: 'trips' });
  form = await createForm(t, tenant, {
    name: 'Monthly data',
    elements: [
      { key: 'energy', label: 'Energy', type: 'NUMBER', required: true },
      { key: 'waste', label: 'Waste', type: 'ACTIVITY', activityDefinitionId: waste, required: true },
      { key: 'note', label: 'Note', type: 'TEXT' },
    ],
  });
  const put = await api(t, 'PUT', `/forms/${form.id}`, {
    token: tenant.owner.token,
    body: {
      name: 'Monthly data',
      periodType: 'MONTHLY',
      dueDays: 10,
      // The stored elements as input: aggregation only where it applies (NUMBER).
      elements: form.elements.map((e: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'aggregation' || e['type'] === 'NUMBER')),
      ),
    },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  expect(put.body.dueDays).toBe(10);
  await activateForm(t, tenant, form.id, plant, [2024]);

  expect(
    (
      await submit(plant[0]!, [
        { elementKey: 'energy', periodUnit: 3, value: 120 },
        { elementKey: 'waste', periodUnit: 3, value: [{ amount: 2 }] },
      ])
    ).status,
  ).toBe(200);
  expect((await submit(plant[1]!, [{ elementKey: 'energy', periodUnit: 3, value: 80 }])).status).toBe(200);
  expect((await submit(plant[3]!, [{ elementKey: 'energy', periodUnit: 3, value: 50 }])).status).toBe(200);
  const marked = await api(t, 'POST', '/activities/no-activity/mark', {
    token: tenant.owner.token,
    body: { formId: form.id, key: 'waste', siteId: plant[3], year: 2024, periodUnit: 3 },
  });
  expect(marked.status).toBe(200);
  // Plant 1 entered March on 5 April.
  await t.database.tenant(org, async (tx) => {
    await sql`update form_element_submissions v set created_at = '2024-04-05T00:00:00Z', recorded_at = '2024-04-05T00:00:00Z'
                from form_submissions sub join form_sites fs on fs.id = sub.form_site_id
               where v.form_submission_id = sub.id and fs.site_id = ${plant[0]}`.execute(tx);
    await sql`update activities set created_at = '2024-04-05T00:00:00Z', updated_at = '2024-04-05T00:00:00Z'
               where site_id = ${plant[0]}`.execute(tx);
  });

  quiet = await createForm(t, tenant, {
    elements: [{ key: 'trips', label: 'Trips', type: 'ACTIVITY', activityDefinitionId: trips }],
  });
  await activateForm(t, tenant, quiet.id, [plant[0]!], [2024]);
  const quietMark = await api(t, 'POST', '/activities/no-activity/mark', {
    token: tenant.owner.token,
    body: { formId: quiet.id, key: 'trips', siteId: plant[0], year: 2024, periodUnit: 3 },
  });
  expect(quietMark.status).toBe(200);
});

describe('GET /completeness', () => {
  it('March: complete on time, partial, missing, complete late, with DHIS2 totals', async () => {
    const res = await completeness(`formId=${form.id}&year=2024&periodUnits=3`);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const due = '2024-04-11T00:00:00.000Z';
    const march = res.body.items.map((s: any) => ({ site: s.siteName, ...s.periods[0] }));
    expect(march).toEqual([
      {
        site: 'Plant 1',
        periodUnit: 3,
        expected: 2,
        reported: 2,
        missing: [],
        status: 'COMPLETE',
        lastReportedAt: '2024-04-05T00:00:00.000Z',
        dueAt: due,
        onTime: true,
        overdue: false,
        locked: false,
      },
      expect.objectContaining({
        site: 'Plant 2',
        reported: 1,
        missing: ['waste'],
        status: 'PARTIAL',
        onTime: false,
        overdue: true,
      }),
      expect.objectContaining({
        site: 'Plant 3',
        reported: 0,
        missing: ['energy', 'waste'],
        status: 'MISSING',
        lastReportedAt: null,
        overdue: true,
      }),
      expect.objectContaining({
        site: 'Plant 4',
        reported: 2,
        status: 'COMPLETE',
        onTime: false,
        overdue: false,
      }),
    ]);
    expect(res.body.expectedElements).toEqual(['energy', 'waste']);
    // 4 expected, 2 actual (Plants 1 and 4), 1 on time (Plant 1).
    expect(res.body.totals).toEqual({
      sites: 4,
      expectedReports: 4,
      actualReports: 2,
      onTimeReports: 1,
      rate: 50,
      onTimeRate: 25,
      complete: 2,
      partial: 1,
      missing: 1,
      noActivity: 0,
      overdue: 2,
    });
    expect(res.body.items[0]).toMatchObject({
      expectedReports: 1,
      actualReports: 1,
      onTimeReports: 1,
      rate: 100,
      onTimeRate: 100,
    });
    expect(res.body.items[1]).toMatchObject({ expectedReports: 1, actualReports: 0, rate: 0, onTimeRate: 0 });
  });

  it('the whole year: 48 periods, 2 reported, overdue until the clock’s day', async () => {
    const res = await completeness(`formId=${form.id}&year=2024`);

    // Due before 1 June: January to April (4 months × 4 plants), less the 2 complete ones.
    expect(res.body.totals).toMatchObject({
      expectedReports: 48,
      actualReports: 2,
      onTimeReports: 1,
      rate: 4.17, // 2 / 48
      onTimeRate: 2.08, // 1 / 48
      partial: 1,
      missing: 45,
      overdue: 14,
    });
    expect(res.body.items[0]).toMatchObject({
      siteName: 'Plant 1',
      expectedReports: 12,
      actualReports: 1,
      rate: 8.33,
    });
    expect(res.body.items[0].periods.map((p: any) => p.periodUnit)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    ]);
  });

  it('pages sites by name; totals stay those of the whole scope', async () => {
    const res = await completeness(`formId=${form.id}&year=2024&periodUnits=3&limit=2&offset=2`);

    expect(res.body.items.map((s: any) => s.siteName)).toEqual(['Plant 3', 'Plant 4']);
    expect(res.body.pagination).toEqual({ total: 4, limit: 2, offset: 2, hasMore: false });
    expect(res.body.totals.expectedReports).toBe(4);
  });

  it('limits to the caller’s sites and to siteIds', async () => {
    const mine = await completeness(`formId=${form.id}&year=2024&periodUnits=3`, tenant.collector.token);
    const named = await completeness(`formId=${form.id}&year=2024&periodUnits=3&siteIds=${plant[1]}`);
    const hidden = await completeness(
      `formId=${form.id}&year=2024&siteIds=${plant[0]}`,
      tenant.collector.token,
    );

    expect(mine.body.items.map((s: any) => s.siteName)).toEqual(['Plant 2', 'Plant 3']);
    expect(mine.body.totals).toMatchObject({ expectedReports: 2, actualReports: 0, rate: 0 });
    expect(named.body.items.map((s: any) => s.siteName)).toEqual(['Plant 2']);
    expect(hidden.status).toBe(403);
  });

  it('NO_ACTIVITY: a period reported only with no-activity markers; no due date, so on time', async () => {
    const res = await completeness(`formId=${quiet.id}&year=2024&periodUnits=3`);

    expect(res.body.items[0].periods[0]).toMatchObject({
      status: 'NO_ACTIVITY',
      reported: 1,
      dueAt: null,
      onTime: true,
      overdue: false,
    });
    expect(res.body.totals).toMatchObject({ expectedReports: 1, actualReports: 1, rate: 100, noActivity: 1 });
  });

  it('refuses unknown forms (404), periods outside the form (400) and bad site ids (400)', async () => {
    expect((await completeness(`formId=${plant[0]}&year=2024`)).status).toBe(404);
    expect((await completeness(`formId=${form.id}&year=2024&periodUnits=13`)).status).toBe(400);
    expect((await completeness(`formId=${form.id}&year=2024&siteIds=nope`)).status).toBe(400);
  });
});

describe('POST /completeness/reminders', () => {
  const remind = (body: Record<string, unknown> = {}) =>
    api(t, 'POST', '/completeness/reminders', {
      token: tenant.manager.token,
      body: { formId: form.id, year: 2024, periodUnit: 3, ...body },
    });

  it('mails each collector of a MISSING or PARTIAL site once, listing what is missing; not again within a day', async () => {
    t.sent.length = 0;
    const first = await remind();
    const again = await remind();
    t.now = new Date(t.now.getTime() + 25 * 3600 * 1000);
    const nextDay = await remind();
    // The e-mails are jobs (decision 232): sent when a worker runs them, all due by now.
    await t.app.jobs.drain();
    t.now = new Date('2024-06-01T00:00:00Z');

    expect(first.body).toEqual({ reminded: 2, alreadyReminded: 0, sites: 2 });
    expect(again.body).toEqual({ reminded: 0, alreadyReminded: 2, sites: 2 });
    expect(nextDay.body).toEqual({ reminded: 2, alreadyReminded: 0, sites: 2 });
    const toCollector = t.sent.find((m) => m.to === tenant.collector.email)!;
    expect(toCollector.subject).toBe('Reminder: Monthly data, March 2024');
    expect(toCollector.text).toContain('- Plant 2: Waste\n- Plant 3: Energy, Waste');
    const toSecond = t.sent.find((m) => m.to === collector2.email)!;
    expect(toSecond.text).toContain('- Plant 3: Energy, Waste');
    expect(toSecond.text).not.toContain('Plant 2');
    expect(t.sent).toHaveLength(4);
  });

  it('only the sites named; a complete site reminds nobody', async () => {
    const res = await remind({ siteIds: [plant[0]] });

    expect(res.body).toEqual({ reminded: 0, alreadyReminded: 0, sites: 0 });
  });

  it('refuses a period outside the form (400) and sites outside the manager’s scope (403)', async () => {
    const other = await createSite(t, tenant.organizationId);
    expect((await remind({ periodUnit: 13 })).status).toBe(400);
    expect((await remind({ siteIds: [other] })).status).toBe(403);
  });
});

describe('locked periods', () => {
  it('a lock shows on the period, the rates do not move, and the collector’s change is refused', async () => {
    const lock = await api(t, 'POST', '/form-locks', {
      token: tenant.manager.token,
      body: { formId: form.id, year: 2024, periodUnit: 3, siteIds: [plant[1]] },
    });
    const refused = await submit(
      plant[1]!,
      [{ elementKey: 'waste', periodUnit: 3, value: [{ amount: 1 }] }],
      tenant.collector.token,
    );
    const res = await completeness(`formId=${form.id}&year=2024&periodUnits=3`);

    expect(lock.status, JSON.stringify(lock.body)).toBe(200);
    expect(refused.status).toBe(400);
    // In plain words (decision 159): the value and its period, not the lock's id.
    expect(refused.body.issues[0].message).toMatch(/ is locked: /);
    expect(refused.body.issues[0].message).not.toContain(lock.body[0].id);
    expect(res.body.items[1].periods[0]).toMatchObject({ status: 'PARTIAL', locked: true });
    expect(res.body.items[0].periods[0].locked).toBe(false);
    expect(res.body.totals).toMatchObject({
      expectedReports: 4,
      actualReports: 2,
      onTimeReports: 1,
      rate: 50,
      onTimeRate: 25,
    });
  });
});

describe('kept totals follow the form', () => {
  const putForm = (dueDays: number, required: string[]) =>
    api(t, 'PUT', `/forms/${form.id}`, {
      token: tenant.owner.token,
      body: {
        name: 'Monthly data',
        periodType: 'MONTHLY',
        dueDays,
        elements: form.elements.map((e: Record<string, unknown>) => ({
          ...Object.fromEntries(
            Object.entries(e).filter(([k]) => k !== 'aggregation' || e['type'] === 'NUMBER'),
          ),
          required: required.includes(e['key'] as string),
        })),
      },
    });
  const march = async () => (await completeness(`formId=${form.id}&year=2024&periodUnits=3`)).body.totals;

  it('due days and required elements changed re-judge every period; changed back, the figures return', async () => {
    // Due on 1 April: Plant 1, entered on 5 April, is late.
    expect((await putForm(0, ['energy', 'waste'])).status).toBe(200);
    expect(await march()).toMatchObject({
      complete: 2,
      onTimeReports: 0,
      partial: 1,
      missing: 1,
      overdue: 2,
    });
    // The note required too: Plants 1 and 4 lack it (partial), with Plant 2.
    expect((await putForm(10, ['energy', 'waste', 'note'])).status).toBe(200);
    expect(await march()).toMatchObject({
      complete: 0,
      onTimeReports: 0,
      partial: 3,
      missing: 1,
      overdue: 4,
    });
    expect((await putForm(10, ['energy', 'waste'])).status).toBe(200);
    expect(await march()).toMatchObject({
      complete: 2,
      onTimeReports: 1,
      partial: 1,
      missing: 1,
      overdue: 2,
    });
    expect(await t.database.system((tx) => verifyCompleteness(tx, tenant.organizationId))).toEqual([]);
  });
});
