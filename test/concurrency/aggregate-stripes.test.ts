import { sql } from 'kysely';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyStats, verifyTotals } from '../../src/modules/indicators/totals.verify.ts';
import { api, useTestApp } from '../helpers/app.ts';
import { activateForm, createForm, createSite, createTenant, type Tenant } from '../helpers/factories.ts';

/**
 * The aggregates' locks (migration 0042): a write of one (site, year) holds only its stripe's lock,
 * so writers of one organization in other stripes go on while it is open, and writers of the same
 * stripe wait for it (a recomputation must see every committed write of its keys).
 */
const t = useTestApp();
let tenant: Tenant;
let form: { id: string };
const sites: string[] = [];
const stripeOf = new Map<string, number>();

const submit = (site: string, value: number) =>
  api(t, 'POST', '/form-submissions', {
    token: tenant.owner.token,
    body: { formId: form.id, siteId: site, year: 2025, values: [{ elementKey: 'a', periodUnit: 1, value }] },
  });

/** The advisory locks the current transaction holds. */
const advisoryLocks = async (tx: Parameters<Parameters<typeof t.database.system>[0]>[0]) =>
  Number(
    (
      await sql<{ n: string }>`select count(*)::text as n from pg_locks
                                where locktype = 'advisory' and pid = pg_backend_pid() and granted`.execute(
        tx,
      )
    ).rows[0]!.n,
  );

/** A connection whose open transaction added 100 to the values of `site` (and holds its stripe's lock). */
async function openWrite(site: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: t.url });
  await client.connect();
  await client.query('begin');
  await client.query(
    'update form_element_submissions set numeric_value = numeric_value + 100 where organization_id = $1 and site_id = $2',
    [tenant.organizationId, site],
  );
  return client;
}

/** Whether `promise` is still pending a second later. */
async function stillWaiting(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return !settled;
}

beforeAll(async () => {
  tenant = await createTenant(t);
  // 20 sites: more than the 16 stripes, so two of them share one.
  for (let i = 0; i < 20; i++) sites.push(await createSite(t, tenant.organizationId, { name: `Plant ${i}` }));
  form = await createForm(t, tenant, { elements: [{ key: 'a', label: 'A', type: 'NUMBER' }] });
  await activateForm(t, tenant, form.id, sites, [2025]);
  for (const [i, site] of sites.entries()) expect((await submit(site, i + 1)).status).toBe(200);
  const rows = await t.database.system((tx) =>
    sql<{ id: string; stripe: number }>`select id, sdcs_aggregate_stripe(id, 2025) as stripe
                                          from sites where organization_id = ${tenant.organizationId}`.execute(
      tx,
    ),
  );
  for (const r of rows.rows) stripeOf.set(r.id, Number(r.stripe));
});

describe('the aggregates’ stripe locks', () => {
  it('a statement over one (site, year) holds one lock; over several stripes, all 16 of the organization', async () => {
    const org = tenant.organizationId;
    // Two sites in two stripes.
    const two = [sites[1]!, sites.slice(2).find((s) => stripeOf.get(s) !== stripeOf.get(sites[1]!))!];
    await t.database.system(async (tx) => {
      await sql`update form_element_submissions set numeric_value = numeric_value + 1
                 where organization_id = ${org} and site_id = ${sites[0]}`.execute(tx);
      expect(await advisoryLocks(tx)).toBe(1);
      await sql`update form_element_submissions set numeric_value = numeric_value + 1
                 where organization_id = ${org} and site_id = any(${two}::uuid[])`.execute(tx);
      expect(await advisoryLocks(tx)).toBe(16);
      // Back to the values of beforeAll.
      await sql`update form_element_submissions set numeric_value = numeric_value - 1
                 where organization_id = ${org} and site_id = any(${[sites[0]!, ...two]}::uuid[])`.execute(
        tx,
      );
    });
    expect(await t.database.system((tx) => verifyTotals(tx, org))).toEqual([]);
    expect(await t.database.system((tx) => verifyStats(tx, org))).toEqual([]);
  });

  it.runIf(Boolean(process.env['DATABASE_URL']))(
    'while a write is open, another stripe of the organization goes on and the same stripe waits',
    async () => {
      const org = tenant.organizationId;
      // 20 sites in 16 stripes: some two share one (pigeonhole); hold the first of them.
      const held = sites.find((a) => sites.some((b) => b !== a && stripeOf.get(b) === stripeOf.get(a)))!;
      const other = sites.find((s) => stripeOf.get(s) !== stripeOf.get(held))!;
      const sameStripe = sites.find((s) => s !== held && stripeOf.get(s) === stripeOf.get(held))!;
      const client = await openWrite(held);
      try {
        // Another stripe: answered while the first write is still open.
        expect((await submit(other, 1000)).status).toBe(200);
        // The same stripe: still waiting a second later, answered once the first commits.
        const waiting = submit(sameStripe, 2000);
        expect(await stillWaiting(waiting)).toBe(true);
        await client.query('commit');
        expect((await waiting).status).toBe(200);
      } finally {
        await client.end();
      }
      expect(await t.database.system((tx) => verifyTotals(tx, org))).toEqual([]);
      expect(await t.database.system((tx) => verifyStats(tx, org))).toEqual([]);
      // The figures: the held site's value + 100; the other site's 1000 and the shared stripe's 2000
      // replace their values.
      const sum = await t.database.system(
        async (tx) =>
          (
            await sql<{ total: string }>`select sum(total)::text as total from value_totals
                                           where organization_id = ${org} and site_id = ${org}
                                             and status = 'COMPLETED'`.execute(tx)
          ).rows[0]!.total,
      );
      const expected = 210 + 100 - (sites.indexOf(other) + 1) + 1000 - (sites.indexOf(sameStripe) + 1) + 2000;
      expect(Number(sum)).toBe(expected);
    },
    30_000,
  );

  it.runIf(Boolean(process.env['DATABASE_URL']))(
    'a change of an element’s aggregation waits for an open write of it and counts its values',
    async () => {
      const org = tenant.organizationId;
      const current = await api(t, 'GET', `/forms/${form.id}`, { token: tenant.owner.token });
      expect(current.status).toBe(200);
      // Element `a` is summed: no statistics rows until it becomes LAST (migration 0044).
      const statsRows = () =>
        t.database.system(
          async (tx) =>
            (
              await sql<{ n: number }>`select count(*)::int as n from value_site_stats
                                        where organization_id = ${org}`.execute(tx)
            ).rows[0]!.n,
        );
      expect(await statsRows()).toBe(0);
      const client = await openWrite(sites[0]!);
      try {
        const changing = api(t, 'PUT', `/forms/${form.id}`, {
          token: tenant.owner.token,
          body: {
            name: current.body.name,
            periodType: current.body.periodType,
            elements: [
              { id: current.body.elements[0].id, key: 'a', label: 'A', type: 'NUMBER', aggregation: 'LAST' },
            ],
          },
        });
        expect(await stillWaiting(changing)).toBe(true);
        await client.query('commit');
        const changed = await changing;
        expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      } finally {
        await client.end();
      }
      // Every site's month and year rows, the open write's value included.
      expect(await statsRows()).toBe(2 * sites.length);
      expect(await t.database.system((tx) => verifyStats(tx, org))).toEqual([]);
      expect(await t.database.system((tx) => verifyTotals(tx, org))).toEqual([]);
    },
    30_000,
  );
});
