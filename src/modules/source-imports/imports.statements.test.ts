import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { verifyCompleteness } from '../completeness/completeness.kept.ts';
import { verifyStats, verifyTotals } from '../indicators/totals.verify.ts';

// An import larger than one write statement (2,500 values): its values are written in several
// statements, in period order rather than the sheet's, and the aggregates each statement keeps
// (totals, statistics, completeness cells) must add up to what the values say.
const t = useTestApp();
let tenant: Tenant;
let formId: string;
let adapter: { id: string; adapterVersion: string };
const ELEMENTS = 110;
const SITES = ['N', 'S'];

beforeAll(async () => {
  tenant = await createTenant(t);
  const org = tenant.organizationId;
  const units = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  const kWh = units.find((u) => u.symbol === 'kWh')!.id;
  const siteIds: string[] = [];
  for (const code of SITES) siteIds.push(await createSite(t, org, { name: `Plant ${code}`, code }));
  const form = await createForm(t, tenant, {
    name: 'Meters',
    periodType: 'MONTHLY',
    // Two meters kept in the per-site statistics (LAST, AVERAGE), the others SUM.
    elements: Array.from({ length: ELEMENTS }, (_, i) => ({
      key: `m${i}`,
      label: `Meter ${i}`,
      type: 'NUMBER',
      unitId: kWh,
      ...(i === 0 ? { aggregation: 'LAST' } : i === ELEMENTS - 1 ? { aggregation: 'AVERAGE' } : {}),
    })),
  });
  formId = form.id;
  await activateForm(t, tenant, formId, siteIds, [2025]);
  const created = await api(t, 'POST', '/source-adapter-definitions', {
    token: tenant.owner.token,
    body: {
      name: 'Meters',
      mapping: {
        sheets: [
          {
            sheet: 'Readings',
            draft: 'form_value',
            form: { id: formId },
            site: { column: 'Site', match: 'code' },
            year: { column: 'Year' },
            period: { column: 'Month' },
            element: { column: 'Meter' },
            value: { column: 'Amount' },
            unit: { column: 'Unit' },
          },
        ],
      },
    },
  });
  expect(created.status).toBe(200);
  adapter = { id: created.body.id, adapterVersion: created.body.adapterVersion };
}, 60_000);

describe('an import written in several statements', () => {
  it('stores every value and keeps totals, statistics and completeness equal to the values', async () => {
    // The sheet's order: each meter's twelve months at both plants, then the next meter.
    const rows: Record<string, unknown>[] = [];
    let expectedJanuary = 0;
    for (let e = 0; e < ELEMENTS; e++)
      for (let month = 1; month <= 12; month++)
        for (const site of SITES) {
          const n = rows.length;
          const inMWh = n % 2 === 1;
          const kWh = n + 0.25;
          rows.push({
            Site: site,
            Year: 2025,
            Month: month,
            Meter: `m${e}`,
            Amount: inMWh ? kWh / 1000 : kWh,
            Unit: inMWh ? 'MWh' : 'kWh',
          });
          if (month === 1) expectedJanuary += kWh;
        }
    expect(rows.length).toBe(2_640);

    const res = await api(t, 'POST', '/source-imports', {
      token: tenant.owner.token,
      headers: { 'idempotency-key': `statements-${tenant.organizationId}` },
      body: {
        sourceAdapterDefinitionId: adapter.id,
        adapterVersion: adapter.adapterVersion,
        mode: 'execute',
        sheets: [{ name: 'Readings', rows }],
      },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    expect(res.body.run.status).toBe('completed');
    expect(res.body.counts.imported).toBe(2_640);

    const org = tenant.organizationId;
    const stored = await t.database.system((tx) =>
      sql<{ n: number; january: number }>`
        select count(*)::int as n, sum(numeric_value) filter (where period_unit = 1)::float8 as january
          from form_element_submissions where organization_id = ${org} and deleted_at is null`.execute(tx),
    );
    expect(stored.rows[0]!.n).toBe(2_640);
    expect(stored.rows[0]!.january).toBeCloseTo(expectedJanuary, 6);

    // The organization's kept January total, added over its elements and stripes: the same figure.
    const kept = await t.database.system((tx) =>
      sql<{ total: number; n: number }>`
        select sum(total)::float8 as total, sum(value_count)::int as n from value_totals
         where organization_id = ${org} and site_id = ${org} and year = 2025 and period_unit = 1`.execute(tx),
    );
    expect(kept.rows[0]!.n).toBe(ELEMENTS * SITES.length);
    expect(kept.rows[0]!.total).toBeCloseTo(expectedJanuary, 6);

    // The statistics hold the LAST and AVERAGE meters' rows (both plants, months and year), and
    // only theirs: the check below compares something.
    const stats = await t.database.system((tx) =>
      sql<{ n: number }>`select count(distinct element_id)::int as n from value_site_stats
         where organization_id = ${org} and year = 2025`.execute(tx),
    );
    expect(stats.rows[0]!.n).toBe(2);

    expect(await t.database.system((tx) => verifyTotals(tx, org))).toEqual([]);
    expect(await t.database.system((tx) => verifyStats(tx, org))).toEqual([]);
    expect(await t.database.system((tx) => verifyCompleteness(tx, org))).toEqual([]);

    // Every element of every month was sent: the 24 cells are complete.
    const cells = await t.database.system((tx) =>
      sql<{ status: string; n: number }>`
        select status, count(*)::int as n from completeness_cells
         where organization_id = ${org} and period_unit > 0 group by status`.execute(tx),
    );
    expect(cells.rows).toEqual([{ status: 'COMPLETE', n: 24 }]);
  }, 120_000);
});
