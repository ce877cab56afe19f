import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { api, useTestApp } from '../helpers/app.ts';
import { createDataset, createTenant } from '../helpers/factories.ts';

/**
 * Issue 41, item 7: a leading space (` =1+4`), a leading line break and a full-width `＝1+5`
 * were written to CSV unprefixed; a spreadsheet that trims spaces on import may run them.
 */
const t = useTestApp();

describe('CSV downloads and the three missed formula forms', () => {
  it('GET /datasets/{id}/export prefixes them, keeps numbers as numbers, and the import gives back the same items', async () => {
    const tenant = await createTenant(t);
    const dataset = await createDataset(t, tenant.organizationId);
    const names = [' =1+4', '\n=1+4', '＝1+5'];
    for (const [i, name] of names.entries()) {
      const created = await api(t, 'POST', '/dataset-items', {
        token: tenant.owner.token,
        body: {
          datasetId: dataset,
          name,
          data: { key: `k${i}`, value: -5 - i, unit: null },
          year: 2024,
          metadata: { note: ' @cmd', wide: '－2' },
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
    }
    const exported = await api(t, 'GET', `/datasets/${dataset}/export`, { token: tenant.owner.token });
    expect(exported.status).toBe(200);
    const [header, ...rows] = parse(exported.body.csvContent) as string[][];
    const column = (name: string) => header!.indexOf(name);
    const byKey = new Map(rows.map((r) => [r[column('key')], r]));
    for (const [i, name] of names.entries()) {
      const row = byKey.get(`k${i}`)!;
      expect(row[column('label')]).toBe(`'${name}`);
      // A negative number is written as a number, without a quote.
      expect(row[column('value')]).toBe(String(-5 - i));
      expect(row[column('metadata.note')]).toBe("' @cmd");
      expect(row[column('metadata.wide')]).toBe("'－2");
    }
    const copy = await createDataset(t, tenant.organizationId);
    const imported = await api(t, 'POST', `/datasets/${copy}/import`, {
      token: tenant.owner.token,
      body: { csvContent: exported.body.csvContent },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const again = await api(t, 'GET', `/datasets/${copy}/export`, { token: tenant.owner.token });
    expect(again.body.csvContent).toBe(exported.body.csvContent);
    // The import read every value as the number it was (a quoted one would have been refused).
    const copied = await t.database.system((tx) =>
      tx.selectFrom('dataset_items').select(['name', 'value']).where('dataset_id', '=', copy).execute(),
    );
    expect(copied.map((i) => i.name).sort()).toEqual([...names].sort());
    expect(copied.map((i) => Number(i.value)).sort()).toEqual([-5, -6, -7]);
  });
});
