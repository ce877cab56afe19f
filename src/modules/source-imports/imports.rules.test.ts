import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createForm, createSite } from '../../../test/helpers/factories.ts';
import { createImportWorld, type ImportWorld, newKey } from '../../../test/helpers/import-world.ts';
import { AppError } from '../../domain/errors.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';
import { canonicalHash } from './canonical.ts';
import { replay } from './imports.service.ts';

const t = useTestApp();
let w: ImportWorld;

beforeAll(async () => {
  w = await createImportWorld(t);
});
afterAll(() => shutdownSandbox());

/** Creates an adapter with one mapping entry for any sheet and previews `rows` through it. */
async function preview(entry: Record<string, unknown>, rows: object[], extra: Record<string, unknown> = {}) {
  const adapter = await api(t, 'POST', '/source-adapter-definitions', {
    token: w.tenant.owner.token,
    body: { name: 'rules', mapping: { sheets: [{ sheet: '*', ...entry }] } },
  });
  expect(adapter.status, JSON.stringify(adapter.body)).toBe(200);
  const res = await api(t, 'POST', '/source-imports', {
    token: w.tenant.owner.token,
    headers: { 'idempotency-key': newKey() },
    body: {
      sourceAdapterDefinitionId: adapter.body.id,
      adapterVersion: adapter.body.adapterVersion,
      sheets: [{ name: 'Any', rows }],
      ...extra,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    counts: Record<string, number>;
    issues: { rowIndex: number; column?: string; message: string }[];
  };
}

describe('resolving rows', () => {
  it('matches sites by id, name and a metadata field', async () => {
    const base = {
      draft: 'form_value',
      form: { id: w.form.id },
      element: { key: 'elec' },
      value: { column: 'v' },
      year: { column: 'y' },
      period: { column: 'm' },
    };
    const byId = await preview({ ...base, site: { column: 's', match: 'id' } }, [
      { s: w.sites.A.toUpperCase(), y: 2025, m: 1, v: 1 },
      { s: 'not-an-id', y: 2025, m: 1, v: 1 },
    ]);
    expect(byId.counts).toMatchObject({ parsed: 1, failed: 1 });
    const byName = await preview({ ...base, site: { column: 's', match: 'name' } }, [
      { s: 'Site B', y: 2025, m: 1, v: 1 },
    ]);
    expect(byName.counts).toMatchObject({ parsed: 1, failed: 0 });
    const byMeta = await preview({ ...base, site: { column: 's', match: 'metadata.erp' } }, [
      { s: 'E-A', y: 2025, m: 1, v: 1 },
      { s: 'E-Z', y: 2025, m: 1, v: 1 },
    ]);
    expect(byMeta.counts).toMatchObject({ parsed: 1, failed: 1 });
    expect(byMeta.issues[0]?.message).toBe('No site has metadata.erp "E-Z"');
    // Two sites with the same name: the row cannot tell them apart.
    await createSite(t, w.tenant.organizationId, { name: 'Twin' });
    await createSite(t, w.tenant.organizationId, { name: 'Twin' });
    const twins = await preview({ ...base, site: { column: 's', match: 'name' } }, [
      { s: 'Twin', y: 2025, m: 1, v: 1 },
    ]);
    expect(twins.issues[0]?.message).toContain('More than one site');
  });

  it('derives quarters from a date column, and the year from it without a year column', async () => {
    const quarterly = await createForm(t, w.tenant, {
      periodType: 'QUARTERLY',
      elements: [{ key: 'q', label: 'Q', type: 'NUMBER' }],
    });
    const body = await preview(
      {
        draft: 'form_value',
        form: { id: quarterly.id },
        site: { column: 's', match: 'code' },
        period: { dateColumn: 'd' },
        element: { key: 'q' },
        value: { column: 'v' },
      },
      [
        { s: 'A', d: '2025-05-31', v: 1 },
        { s: 'A', d: '2025-06-01T10:00:00Z', v: 2 },
        { s: 'A', d: '31/05/2025', v: 3 },
      ],
    );
    expect(body.counts).toMatchObject({ parsed: 2, reduced: 1, ready: 1, failed: 1 });
    expect(body.issues[0]).toMatchObject({ rowIndex: 2, column: 'd' });
  });

  it('checks element types, element keys and activity inputs', async () => {
    const values = await preview(
      {
        draft: 'form_value',
        form: { id: w.form.id },
        site: { column: 's', match: 'code' },
        year: { column: 'y' },
        period: { column: 'm' },
        element: { column: 'k' },
        value: { column: 'v' },
      },
      [
        { s: 'A', y: 2025, m: 1, k: 'note', v: 12 },
        { s: 'A', y: 2025, m: 1, k: 'fuel', v: 1 },
        { s: 'A', y: 2025, m: 1, k: 'elec', v: true },
        { s: 'A', y: 2025, m: 1.5, k: 'elec', v: 1 },
        { s: 'A', y: 1800, m: 1, k: 'elec', v: 1 },
      ],
    );
    expect(values.counts).toMatchObject({ parsed: 1, failed: 4 });
    expect(values.issues.map((i) => i.column)).toEqual(['k', 'v', 'm', 'y']);
    const activities = await preview(
      {
        draft: 'activity',
        form: { id: w.form.id },
        site: { column: 's', match: 'code' },
        year: { column: 'y' },
        period: { column: 'm' },
        activity: { key: 'elec' },
        inputs: { litres: { column: 'l' } },
      },
      [{ s: 'A', y: 2025, m: 1, l: 1 }],
    );
    expect(activities.issues[0]?.message).toContain('not an ACTIVITY element');
    const typed = await preview(
      {
        draft: 'activity',
        form: { id: w.form.id },
        site: { column: 's', match: 'code' },
        year: { column: 'y' },
        period: { column: 'm' },
        activity: { key: 'fuel' },
        inputs: { litres: { column: 'l' }, colour: { column: 'c' } },
      },
      [
        { s: 'A', y: 2025, m: 1, l: 'lots' },
        { s: 'A', y: 2025, m: 1, l: 1, c: 'red' },
      ],
    );
    expect(typed.counts).toMatchObject({ failed: 2 });
    expect(typed.issues[0]).toMatchObject({ column: 'l' });
  });

  it('fails every row when the mapping’s form cannot be found', async () => {
    const body = await preview(
      {
        draft: 'form_value',
        form: { metadataKey: 'source', metadataValue: 'nowhere' },
        element: { key: 'elec' },
        value: { column: 'v' },
      },
      [{ v: 1 }, { v: 2 }, {}],
      { context: { siteId: w.sites.A, year: 2025 } },
    );
    expect(body.counts).toEqual({
      total: 3,
      parsed: 0,
      ready: 0,
      imported: 0,
      reduced: 0,
      skipped: 1,
      failed: 2,
    });
    expect(body.issues[0]?.message).toBe('No form has metadata source = "nowhere"');
  });
});

describe('the two 409s', () => {
  it('tell a changed body from a request still running', () => {
    const fingerprint = canonicalHash({ a: 1 });
    const conflict = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as AppError;
      }
      throw new Error('no error');
    };
    const changed = conflict(() =>
      replay({ fingerprint: canonicalHash({ a: 2 }), response: { run: {} } }, fingerprint),
    );
    const running = conflict(() => replay({ fingerprint, response: null }, fingerprint));
    expect(changed).toBeInstanceOf(AppError);
    expect([changed.status, running.status]).toEqual([409, 409]);
    expect(changed.message).toContain('different request body');
    expect(running.message).toContain('still being processed');
    expect(running.issues?.[0]?.path).toBe('Idempotency-Key');
    expect(replay({ fingerprint, response: { run: {}, replayed: false } }, fingerprint).replayed).toBe(true);
  });
});
