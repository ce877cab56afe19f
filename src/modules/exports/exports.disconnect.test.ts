import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createForm, createTenant, type Tenant } from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
let port: number;

beforeAll(async () => {
  tenant = await createTenant(t);
  const org = tenant.organizationId;
  const form = await createForm(t, tenant, {
    periodType: 'MONTHLY',
    elements: Array.from({ length: 50 }, (_, i) => ({ key: `e${i}`, label: `Element ${i}`, type: 'NUMBER' })),
  });
  // 60 sites x 50 elements x 12 months = 36,000 values (about 12 MB of CSV): more than the
  // connection's buffers hold while the client reads nothing.
  await t.database.system(async (tx) => {
    await sql`select set_config('app.organization_id', ${org}, true)`.execute(tx);
    await sql`insert into sites (organization_id, name, metadata, address)
              select ${org}, 'Plant ' || p, '{}', '{}' from generate_series(1, 60) p`.execute(tx);
    await sql`insert into form_sites (organization_id, form_id, site_id, year)
              select ${org}, ${form.id}::uuid, id, 2025 from sites where organization_id = ${org}`.execute(
      tx,
    );
    await sql`insert into form_submissions (organization_id, form_site_id, user_id)
              select ${org}, id, ${tenant.owner.userId}::uuid from form_sites where organization_id = ${org}`.execute(
      tx,
    );
    await sql`insert into form_element_submissions
                (organization_id, form_submission_id, element_id, period_unit, value, numeric_value, user_id, site_id, year)
              select ${org}, s.id, e.id, m, to_jsonb(m), m, ${tenant.owner.userId}::uuid, fs.site_id, fs.year
                from form_submissions s join form_sites fs on fs.id = s.form_site_id
                cross join unnest(${form.elements.map((e) => e.id)}::uuid[]) e(id)
                cross join generate_series(1, 12) m
               where s.organization_id = ${org}`.execute(tx);
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
}, 60_000);

/** Open export transactions of the test's database (PostgreSQL): a cursor waiting to be fetched. */
async function openCursors(): Promise<number> {
  const rows = await t.database.system((tx) =>
    sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
                        where datname = current_database() and query ilike 'fetch forward%'
                          and state = 'idle in transaction'`.execute(tx),
  );
  return rows.rows[0]!.n;
}

const until = async (check: () => Promise<boolean>, ms: number) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
};

it('starts at once, and stops reading when the client goes away', async () => {
  const { res, req } = await new Promise<{
    res: import('node:http').IncomingMessage;
    req: import('node:http').ClientRequest;
  }>((resolve, reject) => {
    const req = httpRequest(
      {
        port,
        path: '/api/v1/exports/values?year=2025',
        headers: { authorization: `Bearer ${tenant.owner.token}` },
      },
      (res) => resolve({ res, req }),
    );
    req.on('error', reject);
    req.end();
  });
  expect(res.statusCode).toBe(200);
  const first = await new Promise<Buffer>((resolve) => res.once('data', resolve));
  expect(first.toString()).toMatch(/^\uFEFFvalueId,siteId,/);
  res.pause(); // the client reads nothing more: the export waits for it
  if (t.database.engine === 'postgres') {
    // The export holds its cursor while the client does not read…
    expect(await until(async () => (await openCursors()) === 1, 5_000)).toBe(true);
  }
  req.destroy();
  if (t.database.engine === 'postgres') {
    // …and ends its transaction (closing the cursor) once the client is gone.
    expect(await until(async () => (await openCursors()) === 0, 5_000)).toBe(true);
  }
  // The service goes on answering (on PGlite: the one connection is free).
  const me = await api(t, 'GET', '/me', { token: tenant.viewer.token });
  expect(me.status).toBe(200);
});
