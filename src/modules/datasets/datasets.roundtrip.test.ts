import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createDataset, createTenant, type Tenant } from '../../../test/helpers/factories.ts';
import { keyProblem } from './dataset-items.rules.ts';

const t = useTestApp();
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant(t);
});

// Strings that break naive CSV code: separators, quotes, line breaks, formula prefixes,
// surrounding spaces, unicode beyond the BMP.
const tricky = fc.constantFrom(
  'a,b',
  '"quoted"',
  'say "hi"',
  'line\nbreak',
  'cr\r\nlf',
  'lone\rcr',
  ' leading',
  'trailing ',
  '  ',
  '=SUM(A1:A2)',
  '+1',
  '-1',
  '@cmd',
  "'",
  "'=quoted formula",
  "''@twice",
  '\rcr first',
  '-x',
  '=1+2',
  '""',
  ',',
  '\ttab',
  'Ünïcødé ✓ 日本語 🌍',
  '__proto__',
  'null',
  '0.10',
);
const pieces = fc
  .array(fc.constantFrom('a', 'Z', '1', ',', '"', '\n', ' ', '=', 'é', '🌍', ';', '\\'), {
    minLength: 1,
    maxLength: 8,
  })
  .map((parts) => parts.join(''));
const awkward = fc.oneof(tricky, pieces, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }));

const label = awkward.filter((s) => s.trim() !== '');
const key = awkward.filter((s) => keyProblem(s) === null);
const value = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    -0,
    0.1 + 0.2,
    -1e-7,
    5e-324,
    1.7976931348623157e308,
    -123456.789012345,
    1e21,
    123456789012345680000,
  ),
);
const item = fc.record({
  name: label,
  key,
  value,
  unit: fc.constantFrom(null, 'kgCO2e', 'tCO2e', 'kWh'),
  year: fc.integer({ min: 1900, max: 2200 }),
  metadata: fc
    .uniqueArray(fc.tuple(awkward, awkward), { selector: ([field]) => field, maxLength: 3 })
    .map((entries) => Object.fromEntries(entries)),
});
const items = fc.uniqueArray(item, { selector: (i) => `${i.year}|${i.key}`, minLength: 1, maxLength: 8 });

type Items = typeof items extends fc.Arbitrary<infer T> ? T : never;

async function store(datasetId: string, rows: Items) {
  await t.database.tenant(tenant.organizationId, (tx) =>
    tx
      .insertInto('dataset_items')
      .values(
        rows.map((r) => ({
          organization_id: tenant.organizationId,
          dataset_id: datasetId,
          name: r.name,
          key: r.key,
          value: r.value,
          unit: r.unit,
          year: r.year,
          description: null,
          link: null,
          metadata: JSON.stringify(r.metadata),
          input_unit_id: null,
        })),
      )
      .execute(),
  );
}

const exportCsv = async (id: string) =>
  (await api(t, 'GET', `/datasets/${id}/export`, { token: tenant.owner.token })).body;

describe('export -> import -> export', () => {
  it('gives the identical CSV, whatever the strings and numbers', async () => {
    await fc.assert(
      fc.asyncProperty(items, async (rows) => {
        const source = await createDataset(t, tenant.organizationId);
        await store(source, rows);
        const first = await exportCsv(source);
        expect(first.itemCount).toBe(rows.length);

        const target = await createDataset(t, tenant.organizationId);
        const imported = await api(t, 'POST', `/datasets/${target}/import`, {
          token: tenant.owner.token,
          body: { csvContent: first.csvContent },
        });
        expect(imported.body).toEqual({
          created: rows.length,
          updated: 0,
          unchanged: 0,
          failed: 0,
          errors: [],
        });
        const second = await exportCsv(target);
        expect(second.csvContent).toBe(first.csvContent);

        // Every number came back as the same double (-0 reads back as 0).
        const stored = await t.database.tenant(tenant.organizationId, (tx) =>
          tx
            .selectFrom('dataset_items')
            .select(['key', 'year', 'value'])
            .where('dataset_id', '=', target)
            .execute(),
        );
        for (const r of rows) {
          const back = stored.find((s) => s.key === r.key && s.year === r.year);
          expect(back?.value === r.value).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  });
});
