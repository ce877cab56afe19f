// GET /form-submissions: the documented order (year latest first, then form id, then site id) is
// total, so every way of paging through it gives the same list, and the total is right on every
// page, including past the end.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  assignSites,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
let forms: string[];
let sites: string[];
let emptyForm: string;
/** (year, form, site) of every submission made. */
const made: Array<{ year: number; formId: string; siteId: string }> = [];

beforeAll(async () => {
  tenant = await createTenant(t);
  sites = [
    await createSite(t, tenant.organizationId),
    await createSite(t, tenant.organizationId),
    await createSite(t, tenant.organizationId),
  ];
  forms = [(await createForm(t, tenant)).id, (await createForm(t, tenant)).id];
  emptyForm = (await createForm(t, tenant)).id;
  await activateForm(t, tenant, emptyForm, sites, [2024]);
  for (const formId of forms) await activateForm(t, tenant, formId, sites, [2023, 2024, 2025]);
  // 2 forms x 3 sites x 2 years (2023 and 2025), plus form 0 on site 1 in 2024: 13 submissions.
  const plan = [
    ...forms.flatMap((formId) =>
      sites.flatMap((siteId) => [2023, 2025].map((year) => ({ year, formId, siteId }))),
    ),
    { year: 2024, formId: forms[0]!, siteId: sites[1]! },
  ];
  for (const entry of plan) {
    const res = await api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: { ...entry, values: [{ elementKey: 'amount', periodUnit: 1, value: 1 }] },
    });
    expect(res.status).toBe(200);
    made.push(entry);
  }
});

const key = (s: { year: number; formId: string; siteId: string }) => `${s.year}/${s.formId}/${s.siteId}`;

/** The documented order, computed here: year descending, then form id, then site id (UUID text order). */
function expected(filter: (s: (typeof made)[number]) => boolean = () => true): string[] {
  return made
    .filter(filter)
    .sort((a, b) => b.year - a.year || a.formId.localeCompare(b.formId) || a.siteId.localeCompare(b.siteId))
    .map(key);
}

async function list(query: string) {
  const res = await api(t, 'GET', `/form-submissions?${query}`, { token: tenant.owner.token });
  expect(res.status).toBe(200);
  return res.body as {
    items: Array<{ year: number; formId: string; siteId: string }>;
    pagination: { total: number };
  };
}

describe('GET /form-submissions order and totals', () => {
  it('lists every submission in the documented order, with the total', async () => {
    const all = await list('limit=100');
    expect(all.items.map(key)).toEqual(expected());
    expect(all.pagination).toEqual({ total: 13, limit: 100, offset: 0, hasMore: false });
  });

  it('gives the same list whatever the page size, and the total on every page and past the end', async () => {
    for (const size of [1, 2, 4, 5, 13]) {
      const seen: string[] = [];
      for (let offset = 0; offset < 13; offset += size) {
        const page = await list(`limit=${size}&offset=${offset}`);
        expect(page.pagination.total).toBe(13);
        seen.push(...page.items.map(key));
      }
      expect(seen).toEqual(expected());
    }
    const past = await list('limit=5&offset=20');
    expect(past.items).toEqual([]);
    expect(past.pagination).toEqual({ total: 13, limit: 5, offset: 20, hasMore: false });
  });

  it('filters by form, site and year with the right totals', async () => {
    const form0 = await list(`formId=${forms[0]}&limit=3`);
    expect(form0.items.map(key)).toEqual(expected((s) => s.formId === forms[0]).slice(0, 3));
    expect(form0.pagination.total).toBe(7);
    const site1 = await list(`siteId=${sites[1]}`);
    expect(site1.items.map(key)).toEqual(expected((s) => s.siteId === sites[1]));
    expect(site1.pagination.total).toBe(5);
    const y2024 = await list('year=2024');
    expect(y2024.items.map(key)).toEqual([key({ year: 2024, formId: forms[0]!, siteId: sites[1]! })]);
    expect(y2024.pagination.total).toBe(1);
  });

  it('answers an empty page for a form without submissions, and 400 for a form of nobody', async () => {
    const empty = await list(`formId=${emptyForm}`);
    expect(empty.items).toEqual([]);
    expect(empty.pagination.total).toBe(0);
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const query of [`formId=${unknown}`, `formId=${unknown}&siteId=${sites[0]}`]) {
      const res = await api(t, 'GET', `/form-submissions?${query}`, { token: tenant.owner.token });
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe('formId');
    }
  });
});

describe('GET /form-submissions leaves out what is not visible, and counts only what it lists', () => {
  it('drops a deactivated form site, brings it back when reactivated, drops a deleted form, and keeps a member to their sites', async () => {
    const other = await createTenant(t);
    const [s0, s1] = [await createSite(t, other.organizationId), await createSite(t, other.organizationId)];
    const [a, b] = [(await createForm(t, other)).id, (await createForm(t, other)).id];
    await activateForm(t, other, a, [s0, s1], [2025]);
    await activateForm(t, other, b, [s0], [2025]);
    for (const [formId, siteId] of [
      [a, s0],
      [a, s1],
      [b, s0],
    ] as const) {
      const res = await api(t, 'POST', '/form-submissions', {
        token: other.owner.token,
        body: { formId, siteId, year: 2025, values: [{ elementKey: 'amount', periodUnit: 1, value: 2 }] },
      });
      expect(res.status).toBe(200);
    }
    const listed = async (token = other.owner.token, query = 'limit=100') => {
      const res = await api(t, 'GET', `/form-submissions?${query}`, { token });
      expect(res.status).toBe(200);
      const body = res.body as {
        items: Array<{ formId: string; siteId: string }>;
        pagination: { total: number };
      };
      return { keys: body.items.map((i) => `${i.formId}/${i.siteId}`).sort(), total: body.pagination.total };
    };
    expect(await listed()).toEqual({ keys: [`${a}/${s0}`, `${a}/${s1}`, `${b}/${s0}`].sort(), total: 3 });

    // Form a no longer active on site 1 in 2025: its submission is kept but not listed.
    await activateForm(t, other, a, [s0], [2025]);
    expect(await listed()).toEqual({ keys: [`${a}/${s0}`, `${b}/${s0}`].sort(), total: 2 });
    expect((await listed(other.owner.token, `formId=${a}`)).total).toBe(1);
    await activateForm(t, other, a, [s0, s1], [2025]);
    expect((await listed()).total).toBe(3);

    // A deleted form's submissions leave the list and its total, on every filter.
    expect((await api(t, 'DELETE', `/forms/${b}`, { token: other.owner.token })).status).toBe(200);
    expect(await listed()).toEqual({ keys: [`${a}/${s0}`, `${a}/${s1}`].sort(), total: 2 });
    expect((await listed(other.owner.token, `siteId=${s0}`)).total).toBe(1);
    expect((await listed(other.owner.token, 'year=2025&limit=1')).total).toBe(2);

    // A collector assigned to site 1 sees that site's submission only, and a total of one.
    await assignSites(t, other.organizationId, other.collector.userId, [s1]);
    expect(await listed(other.collector.token)).toEqual({ keys: [`${a}/${s1}`], total: 1 });
    // Past the end of the page, the total is still counted.
    expect((await listed(other.owner.token, 'limit=1&offset=5')).total).toBe(2);

    // The per-(form, year) counts the total sums agree with the form sites they count, deleted
    // form included (its sites still count; the list leaves the form out).
    const [counts, expectedCounts] = await t.database.system(async (tx) => [
      await tx
        .selectFrom('form_submission_counts')
        .select(['form_id', 'year', 'submissions'])
        .where('organization_id', '=', other.organizationId)
        .where('submissions', '>', 0)
        .orderBy('form_id')
        .execute(),
      await tx
        .selectFrom('form_sites')
        .select(['form_id', 'year', (eb) => eb.fn.countAll<string>().as('n')])
        .where('organization_id', '=', other.organizationId)
        .where('active', '=', true)
        .where('submitted', '=', true)
        .groupBy(['form_id', 'year'])
        .orderBy('form_id')
        .execute(),
    ]);
    expect(counts).toEqual(
      expectedCounts.map((r) => ({ form_id: r.form_id, year: r.year, submissions: Number(r.n) })),
    );
    expect(counts.map((c) => c.submissions).sort()).toEqual([1, 2]);
  });
});
