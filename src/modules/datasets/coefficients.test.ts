import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { buildDataset, buildDatasetItem, catalogUnits } from '../../../test/helpers/builders.ts';
import { createDatasetWorld } from '../../../test/helpers/dataset-world.ts';
import type { Tenant } from '../../../test/helpers/factories.ts';
import { coefficientsByIds, lookupCoefficient } from './coefficients.repository.ts';

const t = useTestApp();
let tenant: Tenant;
let other: Tenant;
let platform: Tenant;
let grid: string;
let common: string;
let kWh: string;
const ids: Record<string, string> = {};

const lookup = (
  key: string,
  options: { datasetId?: string; year?: number } = {},
  org = tenant.organizationId,
) => t.database.tenant(org, (tx) => lookupCoefficient(tx, org, key, options));

beforeAll(async () => {
  ({ tenant, other, platform } = await createDatasetWorld(t));
  kWh = (await catalogUnits(t))['kWh']!;
  const gridItem = (year: number, value: number) => ({
    key: 'grid-uk',
    value,
    year,
    unit: 'kgCO2e',
    inputUnitId: kWh,
  });
  const ownGrid = await buildDataset(t, {
    tenant,
    name: 'Grid factors',
    items: [gridItem(2023, 0.207), gridItem(2024, 0.193), gridItem(2025, 0.177)],
  });
  grid = ownGrid.id;
  for (const [i, year] of [2023, 2024, 2025].entries()) ids[`grid-${year}`] = ownGrid.items[i]!;
  const commonFactors = await buildDataset(t, {
    tenant: platform,
    name: 'Common factors',
    isCommon: true,
    items: [
      { key: 'grid-uk', value: 0.15, year: 2026, unit: 'kgCO2e' },
      { key: 'diesel', value: 2.51, year: 2024, unit: 'kgCO2e' },
    ],
  });
  common = commonFactors.id;
  ids['common-grid-2026'] = commonFactors.items[0]!;
  ids['common-diesel-2024'] = commonFactors.items[1]!;
  await buildDataset(t, { tenant: other, items: [{ key: 'secret', value: 9, year: 2024 }] });
});

describe('lookupCoefficient', () => {
  it('picks the latest year not after the one asked for', async () => {
    expect(await lookup('grid-uk', { year: 2024 })).toEqual({
      value: 0.193,
      unit: 'kgCO2e',
      year: 2024,
      datasetItemId: ids['grid-2024'],
      datasetId: grid,
      inputUnitId: kWh,
    });
    expect((await lookup('grid-uk', { year: 2030 }))?.year).toBe(2025);
    expect((await lookup('grid-uk', { year: 2023 }))?.value).toBe(0.207);
    expect(await lookup('grid-uk', { year: 2022 })).toBeNull();
  });

  it('takes the latest year when no year is given', async () => {
    expect((await lookup('grid-uk'))?.value).toBe(0.177);
  });

  it('prefers the organization’s own datasets over common ones that have the key', async () => {
    // The common dataset has 2026, but the organization's own 2025 wins.
    expect((await lookup('grid-uk', { year: 2026 }))?.datasetItemId).toBe(ids['grid-2025']);
    // Another organization without its own value gets the common one.
    expect((await lookup('grid-uk', { year: 2026 }, other.organizationId))?.datasetItemId).toBe(
      ids['common-grid-2026'],
    );
  });

  it('falls back to common datasets for keys the organization does not have', async () => {
    expect(await lookup('diesel', { year: 2025 })).toMatchObject({
      value: 2.51,
      datasetId: common,
      year: 2024,
    });
  });

  it('limits the search to one dataset when asked', async () => {
    expect((await lookup('grid-uk', { datasetId: common }))?.value).toBe(0.15);
    expect(await lookup('grid-uk', { datasetId: common, year: 2025 })).toBeNull();
    expect((await lookup('grid-uk', { datasetId: grid, year: 2026 }))?.value).toBe(0.177);
    expect(await lookup('diesel', { datasetId: grid })).toBeNull();
    expect(await lookup('grid-uk', { datasetId: 'not-a-uuid' })).toBeNull();
  });

  it('never finds another organization’s private coefficients', async () => {
    expect(await lookup('secret')).toBeNull();
    expect(await lookup('unknown-key')).toBeNull();
  });

  it('breaks a tie between two own datasets by the most recently changed item', async () => {
    const a = await buildDataset(t, { tenant });
    const b = await buildDataset(t, { tenant });
    const older = (await buildDatasetItem(t, { dataset: a, key: 'tie', value: 1, year: 2024 })).id;
    const newer = (await buildDatasetItem(t, { dataset: b, key: 'tie', value: 2, year: 2024 })).id;
    await t.database.tenant(tenant.organizationId, (tx) =>
      tx
        .updateTable('dataset_items')
        .set({ updated_at: sql`now() - interval '1 day'` })
        .where('id', '=', older)
        .execute(),
    );
    expect((await lookup('tie'))?.datasetItemId).toBe(newer);
  });
});

describe('coefficientsByIds', () => {
  it('returns the readable items among the ids', async () => {
    const found = await t.database.tenant(tenant.organizationId, (tx) =>
      coefficientsByIds(tx, tenant.organizationId, [
        ids['grid-2024']!,
        ids['common-diesel-2024']!,
        '00000000-0000-4000-8000-000000000000',
        'bad',
      ]),
    );
    expect([...found.keys()].sort()).toEqual([ids['grid-2024'], ids['common-diesel-2024']].sort());
    expect(found.get(ids['grid-2024']!)).toMatchObject({ value: 0.193, unit: 'kgCO2e', inputUnitId: kWh });
    const fromOther = await t.database.tenant(other.organizationId, (tx) =>
      coefficientsByIds(tx, other.organizationId, [ids['grid-2024']!]),
    );
    expect(fromOther.size).toBe(0);
  });
});
