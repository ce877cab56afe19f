// Shared by the tests of issue 41, item 1: an organization with enough values that an export does
// not fit in the connection's buffers, and HTTP clients that read the first chunk and stop.
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { TestContext } from '../helpers/app.ts';
import { createForm, type Tenant } from '../helpers/factories.ts';

/**
 * Stores `sites` sites x 50 NUMBER elements x 12 months of 2025 values for `tenant`, in SQL (the
 * API would take minutes). At 40 sites, 24,000 values: about 8 MB of CSV, more than loopback's
 * socket buffers hold while the client reads nothing. Answers the sites' ids (members below
 * OWNER export only the sites assigned to them: see `assignSites`).
 */
export async function seedValues(t: TestContext, tenant: Tenant, sites = 40): Promise<string[]> {
  const org = tenant.organizationId;
  const form = await createForm(t, tenant, {
    periodType: 'MONTHLY',
    elements: Array.from({ length: 50 }, (_, i) => ({ key: `e${i}`, label: `Element ${i}`, type: 'NUMBER' })),
  });
  return t.database.system(async (tx) => {
    await sql`select set_config('app.organization_id', ${org}, true)`.execute(tx);
    await sql`insert into sites (organization_id, name, metadata, address)
              select ${org}, 'Bulk ' || p, '{}', '{}' from generate_series(1, ${sites}::int) p`.execute(tx);
    await sql`insert into form_sites (organization_id, form_id, site_id, year)
              select ${org}, ${form.id}::uuid, id, 2025 from sites
               where organization_id = ${org} and name like 'Bulk %'`.execute(tx);
    await sql`insert into form_submissions (organization_id, form_site_id, user_id)
              select ${org}, id, ${tenant.owner.userId}::uuid from form_sites
               where organization_id = ${org} and form_id = ${form.id}::uuid`.execute(tx);
    await sql`insert into form_element_submissions
                (organization_id, form_submission_id, element_id, period_unit, value, numeric_value, user_id, site_id, year)
              select ${org}, s.id, e.id, m, to_jsonb(m), m, ${tenant.owner.userId}::uuid, fs.site_id, fs.year
                from form_submissions s join form_sites fs on fs.id = s.form_site_id
                cross join unnest(${form.elements.map((e) => e.id)}::uuid[]) e(id)
                cross join generate_series(1, 12) m
               where s.organization_id = ${org} and fs.form_id = ${form.id}::uuid`.execute(tx);
    const ids = await sql<{ id: string }>`select id from sites
                 where organization_id = ${org} and name like 'Bulk %'`.execute(tx);
    return ids.rows.map((r) => r.id);
  });
}

/** Starts `app` on a free loopback port and answers the port. */
export async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

/** A download that read its first chunk and then stopped reading (or a refusal, read whole). */
export interface StalledDownload {
  status: number;
  headers: IncomingMessage['headers'];
  /** The body of a refusal (not 200), parsed. */
  body?: { code: string; message: string };
  /** Reads the rest and answers whether the body arrived whole (false: the server cut it). */
  resume(): Promise<{ complete: boolean }>;
  /** The client goes away. */
  drop(): void;
}

/** GET `path` with `token`; on 200 reads one chunk and then reads nothing more. */
export function stalledDownload(port: number, token: string, path: string): Promise<StalledDownload> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = httpRequest(
      { port, path, agent: false, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.on('error', () => undefined); // the server cutting the connection: seen by `resume`
        const resume = () =>
          new Promise<{ complete: boolean }>((done) => {
            res.once('close', () => done({ complete: res.complete }));
            res.resume();
          });
        const base = { status: res.statusCode ?? 0, headers: res.headers, resume, drop: () => req.destroy() };
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ ...base, body: JSON.parse(Buffer.concat(chunks).toString()) }));
          return;
        }
        res.once('data', () => {
          res.pause();
          resolve(base);
        });
      },
    );
    req.on('error', (error) => {
      // After the answer started, an error is the server cutting the connection (seen by `resume`).
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
    req.end();
  });
}

/** Open connections of a listening app (the tests' own in-process calls open none). */
export function connections(app: FastifyInstance): Promise<number> {
  return new Promise((resolve, reject) =>
    app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

/** Export transactions waiting on the client (PostgreSQL): cursors idle in transaction. */
export async function openCursors(t: TestContext): Promise<number> {
  const rows = await t.database.system((tx) =>
    sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
                        where datname = current_database() and query ilike 'fetch forward%'
                          and state = 'idle in transaction'`.execute(tx),
  );
  return rows.rows[0]!.n;
}

/** Polls `check` until it holds or `ms` pass; answers whether it held. */
export async function until(check: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** Live export places of an organization (decision 204: the caps are counted in the database). */
export async function livePlaces(t: TestContext, organizationId: string): Promise<number> {
  const rows = await t.database.system((tx) =>
    sql<{ n: number }>`select count(*)::int as n from export_places
                        where organization_id = ${organizationId} and expires_at > now()`.execute(tx),
  );
  return rows.rows[0]!.n;
}
