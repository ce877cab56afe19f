import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/helpers/app.ts';
import { useClockTestApp } from '../../../test/helpers/clock-app.ts';
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
import { completenessSource, verifyCompleteness } from './completeness.kept.ts';

// Random sequences of writes (values submitted and deleted, activity lists emptied and filled,
// no-activity markers set and removed, reviews, values backdated around their due dates, sites
// moved in the tree, a site with a bare assignment created and deleted, form-sites activated and
// deactivated, the form's required elements and due days changed); after each sequence the kept
// completeness equals the one recomputed from the data, and GET /completeness gives, in every
// scope, the same answer with its totals read from it as counted directly from the values.

const t = useClockTestApp(new Date('2024-03-20T12:00:00Z'));
let tenant: Tenant;
let form: { id: string; dueDays: number | null; elements: Record<string, unknown>[] };
const sites: Record<string, string> = {};
type SiteName = 'group' | 'plant1' | 'plant2' | 'line1' | 'other';
const SITES: SiteName[] = ['group', 'plant1', 'plant2', 'line1', 'other'];
const KEYS = ['energy', 'waste', 'note'] as const;
let temp = 0;

afterAll(() => shutdownSandbox());

beforeAll(async () => {
  tenant = await createTenant(t);
  const org = tenant.organizationId;
  sites['group'] = await createSite(t, org, { name: 'Group' });
  sites['plant1'] = await createSite(t, org, { name: 'Plant 1', parentId: sites['group'] });
  sites['plant2'] = await createSite(t, org, { name: 'Plant 2', parentId: sites['group'] });
  sites['line1'] = await createSite(t, org, { name: 'Line 1', parentId: sites['plant1'] });
  sites['other'] = await createSite(t, org, { name: 'Other' });
  await assignSites(t, org, tenant.manager.userId, [sites['plant1']!]);
  const waste = await createActivityDefinition(t, org, { key: 'waste' });
  const created = await createForm(t, tenant, {
    name: 'Monthly data',
    elements: [
      { key: 'energy', label: 'Energy', type: 'NUMBER', required: true },
      { key: 'waste', label: 'Waste', type: 'ACTIVITY', activityDefinitionId: waste, required: true },
      { key: 'note', label: 'Note', type: 'TEXT' },
    ],
  });
  form = { ...created, dueDays: null };
  await activateForm(t, tenant, form.id, Object.values(sites), [2024]);
}, 120_000);

type Op =
  | {
      kind: 'submit';
      site: SiteName;
      key: (typeof KEYS)[number];
      month: number;
      value: 'some' | 'empty' | 'delete';
    }
  | { kind: 'marker'; site: SiteName; month: number; on: boolean }
  | { kind: 'review'; pick: number; status: 'APPROVED' | 'REJECTED' }
  | { kind: 'backdate'; pick: number; at: string }
  | { kind: 'move'; site: SiteName; parent: SiteName | null }
  | { kind: 'tempSite'; parent: SiteName | null }
  | { kind: 'formSites'; sites: SiteName[] }
  | { kind: 'required'; keys: (typeof KEYS)[number][] }
  | { kind: 'dueDays'; days: number | null };

const site = fc.constantFrom(...SITES);
const month = fc.integer({ min: 1, max: 3 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('submit' as const),
      site,
      key: fc.constantFrom(...KEYS),
      month,
      value: fc.constantFrom('some' as const, 'some' as const, 'empty' as const, 'delete' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('marker' as const), site, month, on: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('review' as const),
      pick: fc.nat(),
      status: fc.constantFrom('APPROVED' as const, 'REJECTED' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('backdate' as const),
      pick: fc.nat(),
      // Around the due dates of January and February (with 0, 10 or 40 due days).
      at: fc.constantFrom(
        '2024-01-20T00:00:00Z',
        '2024-02-01T00:00:00Z',
        '2024-02-11T00:00:00Z',
        '2024-02-11T00:00:00.001Z',
        '2024-03-05T00:00:00Z',
        '2024-03-12T00:00:00Z',
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      site,
      parent: fc.option(site, { nil: null, freq: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('tempSite' as const),
      parent: fc.option(site, { nil: null, freq: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('formSites' as const),
      sites: fc.subarray(SITES, { minLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('required' as const), keys: fc.subarray([...KEYS]) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('dueDays' as const), days: fc.constantFrom(null, 0, 10, 40) }),
  },
);

const system = <T>(fn: (tx: Parameters<Parameters<typeof t.database.system>[0]>[0]) => Promise<T>) =>
  t.database.system(fn);

async function valueIds(): Promise<string[]> {
  return system(async (tx) => {
    const r = await sql<{ id: string }>`
      select id from form_element_submissions
       where organization_id = ${tenant.organizationId} and deleted_at is null order by id`.execute(tx);
    return r.rows.map((x) => x.id);
  });
}

async function apply(o: Op): Promise<void> {
  const token = tenant.owner.token;
  let res: { status: number; body: unknown };
  if (o.kind === 'submit') {
    const value =
      o.value === 'delete'
        ? null
        : o.key === 'waste'
          ? o.value === 'some'
            ? [{ amount: 2 }]
            : []
          : o.key === 'energy'
            ? 12.5
            : 'ok';
    res = await api(t, 'POST', '/form-submissions', {
      token,
      body: {
        formId: form.id,
        siteId: sites[o.site],
        year: 2024,
        values: [{ elementKey: o.key, periodUnit: o.month, value }],
      },
    });
  } else if (o.kind === 'marker') {
    res = await api(t, 'POST', `/activities/no-activity/${o.on ? 'mark' : 'unmark'}`, {
      token,
      body: { formId: form.id, key: 'waste', siteId: sites[o.site], year: 2024, periodUnit: o.month },
    });
  } else if (o.kind === 'review' || o.kind === 'backdate') {
    const ids = await valueIds();
    if (ids.length === 0) return;
    const id = ids[o.pick % ids.length]!;
    if (o.kind === 'backdate') {
      await system((tx) =>
        sql`update form_element_submissions set created_at = ${o.at} where id = ${id}`.execute(tx),
      );
      return;
    }
    res = await api(t, 'POST', `/form-submissions/values/${id}/review`, {
      token,
      body: { status: o.status },
    });
  } else if (o.kind === 'move') {
    res = await api(t, 'PATCH', `/sites/${sites[o.site]}`, {
      token,
      body: { parentId: o.parent === null ? null : sites[o.parent] },
    });
  } else if (o.kind === 'tempSite') {
    // A site assigned the form (no data yet) and deleted: its assignment leaves the totals (a
    // top-level one leaves the organization's row).
    const id = await createSite(t, tenant.organizationId, {
      name: `Temp ${++temp}`,
      parentId: o.parent === null ? null : sites[o.parent]!,
    });
    await system((tx) =>
      sql`insert into form_sites (organization_id, form_id, site_id, year)
          values (${tenant.organizationId}, ${form.id}, ${id}, 2024)`.execute(tx),
    );
    res = await api(t, 'DELETE', `/sites/${id}`, { token });
  } else if (o.kind === 'formSites') {
    res = await api(t, 'PUT', '/form-sites', {
      token,
      body: { formId: form.id, siteIds: o.sites.map((s) => sites[s]), years: [2024] },
    });
  } else {
    res = await api(t, 'PUT', `/forms/${form.id}`, {
      token,
      body: {
        name: 'Monthly data',
        periodType: 'MONTHLY',
        // One thing changed at a time: the required elements, or the due days.
        dueDays: o.kind === 'dueDays' ? o.days : form.dueDays,
        elements: form.elements.map((e) => ({
          ...Object.fromEntries(
            Object.entries(e).filter(([k]) => k !== 'aggregation' || e['type'] === 'NUMBER'),
          ),
          required: o.kind === 'required' ? (o.keys as string[]).includes(e['key'] as string) : e['required'],
        })),
      },
    });
    if (res.status === 200) form = res.body as typeof form;
  }
  // Refusals (a cycle in the tree, a submission to an inactive form-site) are fine; never a 500.
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
}

/** GET /completeness in several scopes (the owner's, a manager's), totals kept or counted. */
async function answers(kept: boolean) {
  completenessSource.enabled = kept;
  try {
    const out: unknown[] = [];
    const queries: [string, string][] = [
      ['', tenant.owner.token],
      ['&periodUnits=2,3', tenant.owner.token],
      [`&siteIds=${sites['group']}`, tenant.owner.token],
      [`&siteIds=${sites['plant1']},${sites['other']}`, tenant.owner.token],
      [`&siteIds=${sites['line1']},${sites['plant2']}&periodUnits=1`, tenant.owner.token],
      ['', tenant.manager.token],
      [`&siteIds=${sites['plant1']}&periodUnits=1,2`, tenant.manager.token],
    ];
    for (const [query, token] of queries) {
      const res = await api(t, 'GET', `/completeness?formId=${form.id}&year=2024${query}`, { token });
      out.push(res.status === 200 ? res.body : res.status);
    }
    return out;
  } finally {
    completenessSource.enabled = true;
  }
}

describe('kept completeness (property)', () => {
  it('equals the direct count after any sequence of writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 10 }), async (ops) => {
        for (const o of ops) await apply(o);
        expect(await system((tx) => verifyCompleteness(tx, tenant.organizationId))).toEqual([]);
        expect(await answers(true)).toEqual(await answers(false));
      }),
      { numRuns: 12 },
    );
  }, 600_000);
});
