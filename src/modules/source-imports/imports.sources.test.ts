import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createImportWorld, type ImportWorld } from '../../../test/helpers/import-world.ts';
import { API_PREFIX } from '../../app.ts';

const t = useTestApp();
let w: ImportWorld;

beforeAll(async () => {
  w = await createImportWorld(t);
}, 60_000);

type Row = Record<string, unknown>;

/** The 2025 values export as NDJSON rows, by "siteCode elementKey period". */
async function exported(): Promise<Map<string, Row>> {
  const res = await t.app.inject({
    method: 'GET',
    url: `${API_PREFIX}/exports/values?year=2025`,
    headers: { authorization: `Bearer ${w.tenant.owner.token}`, accept: 'application/x-ndjson' },
  });
  expect(res.statusCode).toBe(200);
  const rows = res.body
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Row);
  return new Map(rows.map((r) => [`${r['siteCode']} ${r['elementKey']} ${r['periodUnit']}`, r]));
}

async function execute(sheets: unknown[]): Promise<string> {
  const res = await w.run({ mode: 'execute', sheets });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.run.status).toBe('completed');
  return res.body.run.id;
}

const source = (row: Row | undefined) => ({ run: row?.['importRunId'], rows: row?.['importRows'] });

describe('the import run and rows of each exported value', () => {
  it('names the rows a value was summed or listed from, keeps a run for values a later run left as they were, and forgets it after a hand edit', async () => {
    const first = await execute([
      {
        name: 'Electricity',
        rows: [
          { Site: 'A', Year: 2025, Month: 1, Amount: 100, Unit: 'kWh' },
          { Site: 'B', Year: 2025, Month: 2, Amount: 10, Unit: 'kWh' },
          { Site: 'A', Year: 2025, Month: 1, Amount: 0.5, Unit: 'MWh' },
        ],
      },
      {
        name: 'Fuel',
        rows: [
          { Site: 'A', Date: '2025-01-15', Litres: 10 },
          { Site: 'B', Date: '2025-03-02', Litres: 1 },
          { Site: 'A', Date: '2025-01-20', Litres: 4 },
        ],
      },
    ]);
    let rows = await exported();
    expect(rows.get('A elec 1')?.['value']).toBe(600);
    expect(source(rows.get('A elec 1'))).toEqual({ run: first, rows: 'Electricity:0;Electricity:2' });
    expect(source(rows.get('B elec 2'))).toEqual({ run: first, rows: 'Electricity:1' });
    expect(source(rows.get('A fuel 1'))).toEqual({ run: first, rows: 'Fuel:0;Fuel:2' });
    expect(source(rows.get('B fuel 3'))).toEqual({ run: first, rows: 'Fuel:1' });

    // The second run changes A's January electricity and fuel, and sends B's values unchanged.
    const second = await execute([
      {
        name: 'Electricity',
        rows: [
          { Site: 'B', Year: 2025, Month: 2, Amount: 10, Unit: 'kWh' },
          { Site: 'A', Year: 2025, Month: 1, Amount: 700, Unit: 'kWh' },
        ],
      },
      {
        name: 'Fuel',
        rows: [
          { Site: 'A', Date: '2025-01-15', Litres: 12 },
          { Site: 'B', Date: '2025-03-02', Litres: 1 },
        ],
      },
    ]);
    expect(second).not.toBe(first);
    rows = await exported();
    expect(rows.get('A elec 1')?.['value']).toBe(700);
    expect(source(rows.get('A elec 1'))).toEqual({ run: second, rows: 'Electricity:1' });
    expect(source(rows.get('A fuel 1'))).toEqual({ run: second, rows: 'Fuel:0' });
    expect(source(rows.get('B elec 2'))).toEqual({ run: first, rows: 'Electricity:1' });
    expect(source(rows.get('B fuel 3'))).toEqual({ run: first, rows: 'Fuel:1' });

    // A hand edit of B's February: the export no longer names an import for it.
    const elec = w.form.elements.find((e: { key: string }) => e.key === 'elec')!.id;
    const edit = await api(t, 'POST', '/form-submissions', {
      token: w.tenant.owner.token,
      body: {
        formId: w.form.id,
        siteId: w.sites.B,
        year: 2025,
        values: [{ elementId: elec, periodUnit: 2, value: 11 }],
      },
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    rows = await exported();
    expect(source(rows.get('B elec 2'))).toEqual({ run: null, rows: null });
    expect(source(rows.get('A elec 1'))).toEqual({ run: second, rows: 'Electricity:1' });
  });
});

describe('a value’s import run names a run of its organization', () => {
  it('refuses an unknown run and another organization’s, with the foreign-key SQLSTATE', async () => {
    const other = await createImportWorld(t);
    const res = await other.run({
      mode: 'execute',
      sheets: [{ name: 'Electricity', rows: [{ Site: 'A', Year: 2025, Month: 9, Amount: 1, Unit: 'kWh' }] }],
    });
    expect(res.status).toBe(200);
    const foreignRun = res.body.run.id as string;
    const ownRun = await execute([
      { name: 'Electricity', rows: [{ Site: 'A', Year: 2025, Month: 9, Amount: 2, Unit: 'kWh' }] },
    ]);
    const org = w.tenant.organizationId;
    const setRun = (runId: string) =>
      t.database.tenant(org, (tx) =>
        tx
          .updateTable('form_element_submissions')
          .set({ import_run_id: runId })
          .where('organization_id', '=', org)
          .where('period_unit', '=', 9)
          .execute(),
      );
    for (const runId of [randomUUID(), foreignRun]) {
      const error = await setRun(runId).then(
        () => null,
        (e: { code?: string; message: string }) => e,
      );
      expect(error?.code).toBe('23503');
      expect(error?.message).toMatch(/source import run/);
    }
    await setRun(ownRun);
    const rows = await exported();
    expect(rows.get('A elec 9')?.['importRunId']).toBe(ownRun);
  });
});

describe('migration 0045', () => {
  it('moves the import records still current onto their values, and drops the stale ones', async () => {
    const org = w.tenant.organizationId;
    const script = await readFile(
      fileURLToPath(new URL('../../db/migrations/0045_value_import_source_columns.sql', import.meta.url)),
      'utf8',
    );
    class Rollback extends Error {}
    const outcome = await t.database
      .system(async (tx) => {
        const values = (
          await sql<{ id: string }>`
            select id from form_element_submissions
             where organization_id = ${org} and deleted_at is null order by id limit 2`.execute(tx)
        ).rows;
        expect(values).toHaveLength(2);
        const [current, stale] = values as [(typeof values)[0], (typeof values)[0]];
        const run = (
          await sql<{ id: string }>`
          select id from source_import_runs where organization_id = ${org} limit 1`.execute(tx)
        ).rows[0]!.id;
        // The schema as migration 0044 left it: the records in their own table.
        await sql`alter table form_element_submissions drop column import_run_id, drop column import_rows`.execute(
          tx,
        );
        await sql`create table value_import_sources (
          organization_id uuid not null, value_id uuid not null, run_id uuid not null, rows jsonb not null,
          recorded_at timestamptz not null default now(), primary key (organization_id, value_id))`.execute(
          tx,
        );
        // Each value's own recorded_at, to the microsecond (a JS Date would keep milliseconds).
        await sql`insert into value_import_sources
          select organization_id, id, ${run}::uuid, jsonb_build_array(jsonb_build_object('sheet', 'S', 'rowIndex',
                 case when id = ${current.id} then 3 else 4 end)),
                 case when id = ${current.id} then recorded_at else recorded_at - interval '1 day' end
            from form_element_submissions where id in (${current.id}, ${stale.id})`.execute(tx);
        await sql.raw(script).execute(tx);
        const moved = (
          await sql<{ id: string; import_run_id: string | null; import_rows: unknown }>`
            select id, import_run_id, import_rows from form_element_submissions
             where id in (${current.id}, ${stale.id})`.execute(tx)
        ).rows;
        const table = (
          await sql<{ t: string | null }>`select to_regclass('value_import_sources')::text as t`.execute(tx)
        ).rows[0]!.t;
        throw new Rollback(JSON.stringify({ moved, table, current: current.id, stale: stale.id, run }));
      })
      .catch((e: unknown) => {
        if (!(e instanceof Rollback)) throw e;
        return JSON.parse(e.message);
      });
    const byId = new Map(outcome.moved.map((r: { id: string }) => [r.id, r]));
    expect(byId.get(outcome.current)).toMatchObject({
      import_run_id: outcome.run,
      import_rows: [{ sheet: 'S', rowIndex: 3 }],
    });
    expect(byId.get(outcome.stale)).toMatchObject({ import_run_id: null, import_rows: null });
    expect(outcome.table).toBeNull();
    // Rolled back: the values keep what the imports wrote.
    expect((await exported()).get('A elec 9')?.['importRunId']).toBeTruthy();
  });
});
