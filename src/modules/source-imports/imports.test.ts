import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  createImportWorld,
  type ImportWorld,
  newKey,
  sampleSheets,
} from '../../../test/helpers/import-world.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
let w: ImportWorld;

beforeAll(async () => {
  w = await createImportWorld(t);
});
afterAll(() => shutdownSandbox());

const storedValues = () =>
  t.database.tenant(w.tenant.organizationId, (tx) =>
    tx.selectFrom('form_element_submissions').select(['id']).where('deleted_at', 'is', null).execute(),
  );
const storedActivities = () =>
  t.database.tenant(w.tenant.organizationId, (tx) => tx.selectFrom('activities').select(['id']).execute());

describe('POST /source-imports: preview', () => {
  it('counts, row issues and readiness, and writes nothing but the run', async () => {
    const res = await w.run({ sheets: sampleSheets() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { counts, run, execution, replayed } = res.body;
    expect(replayed).toBe(false);
    expect(counts).toEqual({
      total: 15,
      skipped: 1,
      failed: 8,
      parsed: 6,
      reduced: 1,
      ready: 5,
      imported: 0,
    });
    expect(counts.total).toBe(counts.skipped + counts.failed + counts.parsed);
    expect(counts.ready).toBe(counts.parsed - counts.reduced);
    expect(run).toMatchObject({
      status: 'previewed',
      totalRows: 15,
      draftCount: 5,
      issueCount: 8,
      activityWriteCount: 0,
      formValueWriteCount: 0,
      error: null,
      processedAt: null,
      mediaId: null,
      fileName: null,
      deletedAt: null,
      sourceAdapterDefinitionId: w.adapter.id,
      organizationId: w.tenant.organizationId,
      userId: w.tenant.owner.userId,
    });
    expect(execution).toMatchObject({ attempted: false, blocked: false, message: null });
    expect(execution.readiness).toEqual({
      requiresMissingFormSiteConfirmation: true,
      missingFormSites: [
        {
          formId: w.form.id,
          formName: 'Energy',
          siteId: w.sites.C,
          siteName: 'Site C',
          year: 2025,
          rowCount: 1,
          draftKinds: ['form_value'],
          targetKeys: ['elec'],
          rowIndexes: [8],
        },
      ],
    });
    const issues = res.body.issues as { sheet: string; rowIndex: number; column?: string; message: string }[];
    const at = (sheet: string, rowIndex: number) =>
      issues.find((i) => i.sheet === sheet && i.rowIndex === rowIndex);
    expect(at('Electricity', 3)).toMatchObject({
      column: 'Month',
      message: expect.stringContaining('1..12'),
    });
    expect(at('Electricity', 4)).toMatchObject({
      column: 'Amount',
      message: expect.stringContaining('"1 234,5" is not a number'),
    });
    expect(at('Electricity', 5)).toMatchObject({ column: 'Site', message: 'No site has code "Z"' });
    expect(at('Electricity', 6)).toMatchObject({
      column: 'Unit',
      message: expect.stringContaining('parsec'),
    });
    expect(at('Electricity', 9)).toMatchObject({ column: 'Unit' });
    expect(at('Fuel', 2)?.message).toContain('negative litres');
    expect(at('Fuel', 3)).toMatchObject({ column: 'Date' });
    expect(at('Fuel', 4)?.message).toContain('litres');
    expect(issues).toHaveLength(8);

    // The issues are stored with the run and paged.
    const detail = await api(t, 'GET', `/source-imports/${run.id}?limit=3&offset=1`, {
      token: w.tenant.owner.token,
    });
    expect(detail.status).toBe(200);
    expect(detail.body.counts).toEqual(counts);
    expect(detail.body.issues.items).toEqual(issues.slice(1, 4));
    expect(detail.body.issues.pagination).toEqual({ total: 8, limit: 3, offset: 1, hasMore: true });
    expect(await storedValues()).toHaveLength(0);
    expect(await storedActivities()).toHaveLength(0);
  });

  it('fails every row of a sheet no mapping entry matches, and the rows on sites outside the caller’s scope', async () => {
    const res = await w.run(
      {
        sheets: [
          { name: 'Water', rows: [{ a: 1 }, { a: 2 }] },
          {
            name: 'Electricity',
            rows: [
              { Site: 'A', Year: 2025, Month: 6, Amount: 1, Unit: 'kWh' },
              { Site: 'B', Year: 2025, Month: 6, Amount: 1, Unit: 'kWh' },
            ],
          },
        ],
      },
      { token: w.tenant.collector.token },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.counts).toMatchObject({ total: 4, failed: 3, parsed: 1, ready: 1 });
    expect(res.body.issues[0]).toEqual({
      sheet: 'Water',
      rowIndex: 0,
      message: 'No mapping entry matches the sheet "Water"',
      code: 'import.sheetUnmapped',
      params: { sheet: 'Water' },
    });
    expect(res.body.issues[2]).toMatchObject({ sheet: 'Electricity', rowIndex: 1, column: 'Site' });
    expect(res.body.issues[2].message).toContain('cannot enter data');
  });
});

describe('POST /source-imports: execute', () => {
  it('is blocked by a missing form-site, then writes everything with allowMissingFormSiteCreation', async () => {
    const blocked = await w.run({ mode: 'execute', sheets: sampleSheets() });
    expect(blocked.status).toBe(200);
    expect(blocked.body.run.status).toBe('previewed');
    expect(blocked.body.execution).toMatchObject({ attempted: true, blocked: true });
    expect(blocked.body.execution.message).toContain('allowMissingFormSiteCreation');
    expect(blocked.body.counts.imported).toBe(0);
    expect(await storedValues()).toHaveLength(0);

    const done = await w.run({ mode: 'execute', allowMissingFormSiteCreation: true, sheets: sampleSheets() });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.run).toMatchObject({
      status: 'completed',
      formValueWriteCount: 3,
      activityWriteCount: 2,
      error: null,
    });
    expect(done.body.run.processedAt).not.toBeNull();
    expect(done.body.counts).toMatchObject({ ready: 5, imported: 5 });
    expect(done.body.execution).toMatchObject({ attempted: true, blocked: false, message: null });

    // Visible through the API, as a submission's values and activities are.
    const subs = await api(t, 'GET', `/form-submissions?formId=${w.form.id}&siteId=${w.sites.A}&year=2025`, {
      token: w.tenant.owner.token,
    });
    const values = subs.body.items[0].values as { elementKey: string; periodUnit: number; value: unknown }[];
    // 100 kWh + 0.5 MWh, summed in the element's unit.
    expect(values.find((v) => v.elementKey === 'elec' && v.periodUnit === 1)?.value).toBe(600);
    expect(values.find((v) => v.elementKey === 'fuel' && v.periodUnit === 1)?.value).toEqual([
      { litres: 10 },
      { litres: 4 },
    ]);
    const acts = await api(t, 'GET', `/activities?formId=${w.form.id}&key=fuel`, {
      token: w.tenant.owner.token,
    });
    expect(acts.status).toBe(200);
    expect(acts.body.activities.map((a: { value: number }) => a.value).sort()).toEqual([10, 25]);
    const siteC = await api(t, 'GET', `/form-sites?formId=${w.form.id}`, { token: w.tenant.owner.token });
    expect(siteC.body.some((fs: { siteId: string }) => fs.siteId === w.sites.C)).toBe(true);

    // History rows, as for a submission.
    const history = await t.database.tenant(w.tenant.organizationId, (tx) =>
      tx.selectFrom('form_value_history').select('id').execute(),
    );
    expect(history.length).toBeGreaterThanOrEqual(4);
    const activityHistory = await t.database.tenant(w.tenant.organizationId, (tx) =>
      tx.selectFrom('activity_history').select('id').execute(),
    );
    expect(activityHistory).toHaveLength(2);
  });

  it('gives the same counts and issues in preview and execute on every fixture', async () => {
    const fixtures = [
      sampleSheets(),
      [sampleSheets()[0]!],
      [sampleSheets()[1]!],
      [{ name: 'Electricity', rows: [{ Site: 'A', Year: 2025, Month: 7, Amount: 3, Unit: 'kWh' }] }],
      [{ name: 'Other', rows: [{ x: 1 }] }],
    ];
    for (const sheets of fixtures) {
      const preview = await w.run({ allowMissingFormSiteCreation: true, sheets });
      const execute = await w.run({ mode: 'execute', allowMissingFormSiteCreation: true, sheets });
      expect(execute.body.run.status).toBe('completed');
      const { imported: _p, ...previewCounts } = preview.body.counts;
      const { imported, ...executeCounts } = execute.body.counts;
      expect(executeCounts).toEqual(previewCounts);
      expect(imported).toBe(previewCounts.ready);
      expect(execute.body.issues).toEqual(preview.body.issues);
      expect(execute.body.execution.readiness.missingFormSites.length).toBeLessThanOrEqual(
        preview.body.execution.readiness.missingFormSites.length,
      );
    }
  });

  it('uses context.siteId and context.year when the mapping has no site or year column', async () => {
    const mapping = {
      sheets: [
        {
          sheet: '*',
          draft: 'form_value',
          form: { id: w.form.id },
          period: { column: 'M' },
          element: { column: 'K' },
          value: { column: 'V' },
          reduce: 'last',
        },
      ],
    };
    const adapter = await api(t, 'POST', '/source-adapter-definitions', {
      token: w.tenant.owner.token,
      body: { name: 'ctx', mapping },
    });
    const res = await api(t, 'POST', '/source-imports', {
      token: w.tenant.owner.token,
      headers: { 'idempotency-key': newKey() },
      body: {
        sourceAdapterDefinitionId: adapter.body.id,
        adapterVersion: adapter.body.adapterVersion,
        mode: 'execute',
        context: { siteId: w.sites.B, year: 2025 },
        sheets: [
          {
            name: 'Any',
            rows: [
              { M: 11, K: 'note', V: 'first' },
              { M: 11, K: 'note', V: 'second' },
              { M: 11, K: 'nope', V: 'x' },
              { M: 11, K: 'fuel', V: 'x' },
            ],
          },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.counts).toMatchObject({
      total: 4,
      parsed: 2,
      reduced: 1,
      ready: 1,
      imported: 1,
      failed: 2,
    });
    expect(res.body.issues.map((i: { column?: string }) => i.column)).toEqual(['K', 'K']);
    const subs = await api(t, 'GET', `/form-submissions?formId=${w.form.id}&siteId=${w.sites.B}&year=2025`, {
      token: w.tenant.owner.token,
    });
    const note = subs.body.items[0].values.find(
      (v: { elementKey: string; periodUnit: number }) => v.elementKey === 'note' && v.periodUnit === 11,
    );
    expect(note.value).toBe('second');
  });
});

describe('POST /source-imports: idempotency', () => {
  it('replays the stored answer for the same key and body, and 409s for another body', async () => {
    const key = newKey();
    const body = {
      mode: 'execute',
      sheets: [{ name: 'Electricity', rows: [{ Site: 'A', Year: 2025, Month: 8, Amount: 5, Unit: 'kWh' }] }],
    };
    const first = await w.run(body, { key });
    const again = await w.run(body, { key });
    expect(again.status).toBe(200);
    expect(again.body.replayed).toBe(true);
    expect({ ...again.body, replayed: false }).toEqual(first.body);
    const changed = await w.run(
      {
        ...body,
        sheets: [
          { name: 'Electricity', rows: [{ Site: 'A', Year: 2025, Month: 8, Amount: 6, Unit: 'kWh' }] },
        ],
      },
      { key },
    );
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe('CONFLICT');
    expect(changed.body.message).toContain('different request body');
    expect(changed.body.issues[0].path).toBe('Idempotency-Key');
    // The key is the user's: another user may use it for their own import.
    const other = await w.run(body, { key, token: w.tenant.collector.token });
    expect(other.status).toBe(200);
    expect(other.body.replayed).toBe(false);
  });

  it('runs once for 10 concurrent duplicates; the others replay it', async () => {
    const key = newKey();
    const body = {
      mode: 'execute',
      sheets: [{ name: 'Fuel', rows: [{ Site: 'A', Date: '2025-09-09', Litres: 2 }] }],
    };
    const before = (await api(t, 'GET', '/source-imports?limit=1', { token: w.tenant.owner.token })).body
      .pagination.total;
    const answers = await Promise.all(Array.from({ length: 10 }, () => w.run(body, { key })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const ok = answers.filter((a) => a.status === 200);
    expect(new Set(ok.map((a) => a.body.run.id)).size).toBe(1);
    expect(ok.filter((a) => !a.body.replayed)).toHaveLength(1);
    const after = (await api(t, 'GET', '/source-imports?limit=1', { token: w.tenant.owner.token })).body
      .pagination.total;
    expect(after).toBe(before + 1);
    const acts = await api(t, 'GET', `/activities?formId=${w.form.id}&key=fuel&periodUnits=9`, {
      token: w.tenant.owner.token,
    });
    expect(acts.body.activities).toHaveLength(1);
  });

  it('lists runs newest first; another tenant’s run is 404', async () => {
    const list = await api(t, 'GET', '/source-imports?limit=2', { token: w.tenant.owner.token });
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(2);
    expect(list.body.pagination.hasMore).toBe(true);
    const { createTenant } = await import('../../../test/helpers/factories.ts');
    const other = await createTenant(t);
    const foreign = await api(t, 'GET', `/source-imports/${list.body.items[0].id}`, {
      token: other.owner.token,
    });
    expect(foreign.status).toBe(404);
  });
});
