import { type RawBuilder, sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { createTenant, type Tenant } from '../../../test/helpers/factories.ts';
import type { Tx } from '../../db/client.ts';
import { ExportCancelled } from './exports.formats.ts';
import { nextPageSize, type OrderedQuery, PGLITE_PAGE, readPages } from './exports.reader.ts';

const t = useTestApp();
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  tenant = await createTenant(t);
  other = await createTenant(t);
  // 7 sites, read back in id order (only those of the tenant: row-level security).
  for (const org of [tenant.organizationId, other.organizationId]) {
    await t.database.tenant(org, (tx) =>
      sql`insert into sites (organization_id, name, metadata, address)
          select ${org}, 'S' || n, '{}', '{}' from generate_series(1, 7) n`.execute(tx),
    );
  }
});

/** The tenant's sites in id order, as an export reads its rows (no organization filter: RLS). */
const sites: OrderedQuery<{ id: string; organization_id: string }, string> = {
  keyOf: (row) => row.id,
  statement: (after, limit): RawBuilder<{ id: string; organization_id: string }> =>
    sql`select id, organization_id from sites ${after === null ? sql`` : sql`where id > ${after}::uuid`}
        order by id ${limit === null ? sql`` : sql`limit ${limit}`}`,
};

const run = <T>(fn: (tx: Tx) => Promise<T>) => t.database.tenant(tenant.organizationId, fn);

/** Fails instead of waiting forever (a held PGlite connection would make `fn` wait for ever). */
const within = <T>(ms: number, promise: Promise<T>) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
  ]);

describe('readPages', () => {
  it('hands over every row in pages, in order, and only the organization’s', async () => {
    const pages: string[][] = [];
    await readPages(
      t.database.engine,
      run,
      sites,
      new AbortController().signal,
      async (rows) => {
        expect(rows.every((r) => r.organization_id === tenant.organizationId)).toBe(true);
        pages.push(rows.map((r) => r.id));
      },
      3,
    );
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    const all = pages.flat();
    expect(all).toEqual([...all].sort());
    expect(new Set(all).size).toBe(7);
  });

  it('lets another organization’s request run between pages (the embedded connection is not held)', async () => {
    let answered = 0;
    await readPages(
      t.database.engine,
      run,
      sites,
      new AbortController().signal,
      async () => {
        // On PGlite this waits for the one connection: it answers only if no page holds it. On
        // PostgreSQL the export holds one pooled connection and this takes another.
        const count = await within(
          5_000,
          t.database.tenant(other.organizationId, (tx) =>
            sql<{ n: number }>`select count(*)::int as n from sites`.execute(tx),
          ),
        );
        expect(count.rows[0]!.n).toBe(7);
        answered++;
      },
      3,
    );
    expect(answered).toBe(3);
  });

  it('stops reading when the client goes away', async () => {
    const controller = new AbortController();
    let pages = 0;
    const reading = readPages(
      t.database.engine,
      run,
      sites,
      controller.signal,
      async () => {
        pages++;
        controller.abort();
      },
      3,
    );
    await expect(reading).rejects.toBeInstanceOf(ExportCancelled);
    expect(pages).toBe(1);
    // Nothing is left open: the next transaction runs at once.
    await within(
      5_000,
      run((tx) => sql`select 1`.execute(tx)),
    );
  });

  it('stops when the output fails, and leaves nothing open', async () => {
    const reading = readPages(
      t.database.engine,
      run,
      sites,
      new AbortController().signal,
      async () => {
        throw new ExportCancelled();
      },
      3,
    );
    await expect(reading).rejects.toBeInstanceOf(ExportCancelled);
    await within(
      5_000,
      run((tx) => sql`select 1`.execute(tx)),
    );
  });

  it('completes each page in the transaction that read it, before handing it over', async () => {
    const completed: string[][] = [];
    const handed: string[][] = [];
    await readPages(
      t.database.engine,
      run,
      {
        ...sites,
        async complete(tx, rows) {
          // A statement in the page's transaction (the cursor's, on PostgreSQL, while it is open).
          const n = await tx.executeQuery(sql`select count(*)::int as n from sites`.compile(tx));
          expect((n.rows[0] as { n: number }).n).toBe(7);
          completed.push(rows.map((r) => r.id));
          for (const r of rows) r.organization_id = 'completed';
        },
      },
      new AbortController().signal,
      async (rows) => {
        expect(rows.every((r) => r.organization_id === 'completed')).toBe(true);
        handed.push(rows.map((r) => r.id));
      },
      3,
    );
    expect(completed).toEqual(handed);
    expect(handed.flat()).toHaveLength(7);
  });
});

describe('nextPageSize (PGlite)', () => {
  it('scales the page towards the time budget, by at most 2x either way, within bounds', () => {
    const budget = PGLITE_PAGE.budgetMs;
    expect(nextPageSize(200, budget)).toBe(200);
    expect(nextPageSize(200, budget / 2)).toBe(400);
    expect(nextPageSize(200, budget / 10)).toBe(400); // at most doubled
    expect(nextPageSize(200, budget * 2)).toBe(100);
    expect(nextPageSize(200, budget * 10)).toBe(100); // at most halved
    expect(nextPageSize(200, 0)).toBe(400);
    expect(nextPageSize(PGLITE_PAGE.max, 1)).toBe(PGLITE_PAGE.max);
    expect(nextPageSize(PGLITE_PAGE.min, budget * 10)).toBe(PGLITE_PAGE.min);
  });
});
