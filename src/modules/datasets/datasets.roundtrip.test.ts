import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { buildTenant, catalogUnits } from '../../../test/helpers/builders.ts';
import { createDataset, createDatasetItem, type Tenant } from '../../../test/helpers/factories.ts';
import { createIndicatorWorld, el, op } from '../../../test/helpers/indicator-world.ts';
import { keyProblem } from './dataset-items.rules.ts';

const t = useTestApp();
let tenant: Tenant;

beforeAll(async () => {
  tenant = await buildTenant(t);
  for (const [symbol, id] of Object.entries(await catalogUnits(t))) units.set(symbol, id);
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
/** JSON values a metadata field may hold (text, also empty, numbers, booleans, null, objects). */
const metadataValue = fc.oneof(
  { weight: 4, arbitrary: awkward },
  fc.constantFrom('', 0, -1.5, 3, true, false, null, { a: [1, 'x'] }, ['x', 2]),
);
const text = fc.option(awkward, { nil: null });
const tag = awkward.filter((s) => s.length <= 100);

/** Catalog units by symbol (filled in beforeAll). */
const units = new Map<string, string>();
const item = fc.record({
  name: label,
  key,
  value,
  unit: fc.constantFrom(null, 'kgCO2e', 'tCO2e', 'kWh'),
  inputUnit: fc.constantFrom(null, 'kWh', 'MWh', 'L', 'km'),
  year: fc.integer({ min: 1900, max: 2200 }),
  description: text,
  link: text,
  tags: fc.uniqueArray(tag, { maxLength: 4 }),
  metadata: fc
    .uniqueArray(fc.tuple(awkward, metadataValue), { selector: ([field]) => field, maxLength: 3 })
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
          description: r.description,
          link: r.link,
          tags: r.tags,
          metadata: JSON.stringify(r.metadata),
          input_unit_id: r.inputUnit === null ? null : units.get(r.inputUnit)!,
        })),
      )
      .execute(),
  );
}

/** Every stored field of a dataset's items but their ids, in (key, year) order. */
const storedItems = (datasetId: string) =>
  t.database.tenant(tenant.organizationId, (tx) =>
    tx
      .selectFrom('dataset_items')
      .select([
        'name',
        'key',
        'value',
        'unit',
        'year',
        'description',
        'link',
        'tags',
        'metadata',
        'input_unit_id',
      ])
      .where('dataset_id', '=', datasetId)
      .orderBy('key')
      .orderBy('year')
      .execute(),
  );

const exportCsv = async (id: string) =>
  (await api(t, 'GET', `/datasets/${id}/export`, { token: tenant.owner.token })).body;

describe('export -> import -> export', () => {
  it('gives items equal in every field and the identical CSV, whatever the strings and numbers', async () => {
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
        // Every field of every item, as stored: label, key, value, units, year, texts, tags, metadata.
        expect(await storedItems(target)).toEqual(await storedItems(source));

        // Every number came back as the same double (the drivers send -0 as 0, so it is stored as 0).
        const stored = await t.database.tenant(tenant.organizationId, (tx) =>
          tx
            .selectFrom('dataset_items')
            .select(['key', 'year', 'value'])
            .where('dataset_id', '=', target)
            .execute(),
        );
        for (const r of rows) {
          const back = stored.find((s) => s.key === r.key && s.year === r.year);
          expect(back?.value === r.value, `${r.value} -> ${back?.value}`).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('import rows with units that name nothing', () => {
  it('are row errors naming the row and the column, and write nothing of the row', async () => {
    const target = await createDataset(t, tenant.organizationId);
    const res = await api(t, 'POST', `/datasets/${target}/import`, {
      token: tenant.owner.token,
      body: {
        csvContent: [
          'label,key,value,unit,year,inputUnit',
          'Grid,grid,0.4,kgCO2e,2025,MWhh',
          'Gas,gas,0.2,kgCO2ee,2025,kWh',
          'Oil,oil,0.27,kgCO2e,2025,kWh',
        ].join('\n'),
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: 1, failed: 2 });
    expect(res.body.errors).toEqual([
      'Row 1: inputUnit "MWhh" is not the symbol of a unit you can use here',
      'Row 2: unit "kgCO2ee" is not the symbol of a unit you can use here',
    ]);
    expect((await storedItems(target)).map((i) => i.key)).toEqual(['oil']);
  });

  it('older files without the new columns still import (and keep stored values of the missing columns)', async () => {
    const target = await createDataset(t, tenant.organizationId);
    const old = 'label,key,value,unit,year,metadata.source\nDiesel,diesel,2.68,kgCO2e,2024,IEA\n';
    const res = await api(t, 'POST', `/datasets/${target}/import`, {
      token: tenant.owner.token,
      body: { csvContent: old },
    });
    expect(res.body).toMatchObject({ created: 1, failed: 0 });
    expect(await storedItems(target)).toEqual([
      {
        name: 'Diesel',
        key: 'diesel',
        value: 2.68,
        unit: 'kgCO2e',
        year: 2024,
        description: null,
        link: null,
        tags: [],
        metadata: { source: 'IEA' },
        input_unit_id: null,
      },
    ]);
  });
});

describe('a Scope 2 factor per MWh, exported and imported (issue 24: the input unit was dropped)', () => {
  it('keeps its conversion: 1,000 kWh x 400 kgCO2e/MWh is 400 kgCO2e before and after, not 400,000', async () => {
    const w = await createIndicatorWorld(t);
    const org = w.tenant.organizationId;
    const source = await createDataset(t, org, { name: 'Grid per MWh' });
    await createDatasetItem(t, org, source, {
      key: 'grid_mwh',
      name: 'Grid electricity',
      value: 400,
      year: 2025,
      unit: 'kgCO2e',
      inputUnitId: w.units['MWh'],
    });
    const scope2 = (datasetId: string) =>
      w.create({
        name: `Scope 2 (${datasetId})`,
        unitId: w.units['kgCO2e'],
        expressionParts: [
          el(w.element.elec),
          op('*'),
          { type: 'datasetItem', value: 'grid_mwh', metadata: { datasetId } },
        ],
      });
    const before = await scope2(source);
    expect(before.status, JSON.stringify(before.body)).toBe(200);

    const exported = await api(t, 'GET', `/datasets/${source}/export`, { token: w.tenant.owner.token });
    const copy = await createDataset(t, org, { name: 'Grid per MWh (copy)' });
    const imported = await api(t, 'POST', `/datasets/${copy}/import`, {
      token: w.tenant.owner.token,
      body: { csvContent: exported.body.csvContent },
    });
    expect(imported.body).toMatchObject({ created: 1, failed: 0 });
    const after = await scope2(copy);

    // Plant 2, 2025: 1,000 kWh = 1 MWh; 1 MWh x 400 kgCO2e/MWh = 400 kgCO2e.
    const values = await w.values({
      indicatorIds: [before.body.id, after.body.id],
      year: 2025,
      siteIds: [w.sites.plant2],
    });
    expect(values.status, JSON.stringify(values.body)).toBe(200);
    expect(values.body.results[before.body.id].value).toBe(400);
    expect(values.body.results[after.body.id].value).toBe(400);
    expect(values.body.results[after.body.id].issues).toEqual([]);
    expect(exported.body.csvContent.split('\n')[1]).toBe('Grid electricity,grid_mwh,400,kgCO2e,2025,MWh,,,');
  });
});
