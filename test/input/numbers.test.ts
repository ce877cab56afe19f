import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roundStored } from '../../src/lib/numbers.ts';
import { neutralizeCell, restoreCell } from '../../src/modules/datasets/datasets.csv.ts';
import { shutdownSandbox } from '../../src/sandbox/index.ts';
import { api, useTestApp } from '../helpers/app.ts';
import {
  activateForm,
  createActivityDefinition,
  createDataset,
  createForm,
  createSite,
} from '../helpers/factories.ts';
import { createSubmissionWorld, type SubmissionWorld } from '../helpers/submission-world.ts';

/** Computed numbers are finite and rounded one way; CSV exports hold no live formulas (17.2, 10.5). */
const t = useTestApp();
let world: SubmissionWorld;

beforeAll(async () => {
  world = await createSubmissionWorld(t);
});
afterAll(() => shutdownSandbox());

describe('numbers', () => {
  it('roundStored keeps 15 significant digits', () => {
    expect(roundStored(600 * 0.035)).toBe(21);
    expect(roundStored(0.1 + 0.2)).toBe(0.3);
    expect(roundStored(999.9999999999999)).toBe(1000);
    expect(roundStored(123456789.123456)).toBe(123456789.123456);
    expect(roundStored(-1e-300)).toBe(-1e-300);
    expect(roundStored(0)).toBe(0);
  });

  it('a value too large to convert exactly is a 400 naming the value, not a stored null', async () => {
    // Past 2^53 − 1 a number is refused as input (decision 184), before any conversion could overflow.
    const res = await world.submit({
      values: [{ elementKey: 'energy', periodUnit: 1, value: 1e306, selectedUnitId: world.units['MWh'] }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.issues).toMatchObject([
      {
        path: 'values.0.value',
        message: expect.stringMatching(/2\^53.*a larger unit keeps such figures in range/),
      },
    ]);
    const fine = await world.submit({
      values: [{ elementKey: 'energy', periodUnit: 1, value: 1, selectedUnitId: world.units['MWh'] }],
    });
    expect(fine.status).toBe(200);
    expect(fine.body.values[0].value).toBe(1000);
  });

  it('calculated activity values are rounded like conversions (600 × 0.035 = 21)', async () => {
    const { tenant } = world;
    const definition = await createActivityDefinition(t, tenant.organizationId, {
      key: 'noise',
      inputs: [{ name: 'x', type: 'number' }],
      calcCode: 'return inputs.x * 0.035',
    });
    const site = await createSite(t, tenant.organizationId);
    const form = await createForm(t, tenant, {
      periodType: 'YEARLY',
      elements: [{ label: 'Noise', type: 'ACTIVITY', activityDefinitionId: definition }],
    });
    await activateForm(t, tenant, form.id, [site], [2025]);
    const res = await api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId: site,
        year: 2025,
        values: [{ elementKey: 'noise', periodUnit: 1, value: [{ x: 600 }] }],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.values[0].activities[0].value).toBe(21);
  });
});

describe('CSV export without live formulas', () => {
  it('cells a spreadsheet would run get a leading quote; the import takes it off again', () => {
    for (const [cell, shown] of [
      ['=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'],
      ['+cmd', "'+cmd"],
      ['-x', "'-x"],
      ['@SUM(A1)', "'@SUM(A1)"],
      ['\tx', "'\tx"],
      ['\rx', "'\rx"],
      ["'=x", "''=x"],
      ['-5', '-5'],
      ['+1.5e3', '+1.5e3'],
      ["'plain", "'plain"],
      ['plain', 'plain'],
    ]) {
      expect(neutralizeCell(cell!), cell).toBe(shown);
      expect(restoreCell(neutralizeCell(cell!)), cell).toBe(cell);
    }
  });

  it('GET /datasets/{id}/export writes formula-leading labels and metadata quoted, and they import back as they were', async () => {
    const { tenant } = world;
    const dataset = await createDataset(t, tenant.organizationId);
    const created = await api(t, 'POST', '/dataset-items', {
      token: tenant.owner.token,
      body: {
        datasetId: dataset,
        name: '=1+2',
        data: { key: 'k', value: -5, unit: null },
        year: 2024,
        metadata: { note: '@evil' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const exported = await api(t, 'GET', `/datasets/${dataset}/export`, { token: tenant.owner.token });
    expect(exported.status).toBe(200);
    const lines = exported.body.csvContent.trim().split('\n');
    expect(lines[1]).toBe("'=1+2,k,-5,,2024,,,,,'@evil");
    const copy = await createDataset(t, tenant.organizationId);
    const imported = await api(t, 'POST', `/datasets/${copy}/import`, {
      token: tenant.owner.token,
      body: { csvContent: exported.body.csvContent },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const again = await api(t, 'GET', `/datasets/${copy}/export`, { token: tenant.owner.token });
    expect(again.body.csvContent).toBe(exported.body.csvContent);
  });
});
