import { describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createForm, createTenant } from '../../../test/helpers/factories.ts';
import { canonicalHash } from './canonical.ts';

const t = useTestApp();

const sheet = (formId: string, extra: Record<string, unknown> = {}) => ({
  sheet: 'Electricity',
  draft: 'form_value',
  form: { id: formId },
  element: { key: 'amount' },
  value: { column: 'kWh' },
  ...extra,
});

describe('source adapter definitions', () => {
  it('saves each mapping as an immutable version keyed by the hash of its canonical JSON', async () => {
    const tenant = await createTenant(t);
    const form = await createForm(t, tenant);
    const first = { sheets: [sheet(form.id)] };
    const created = await api(t, 'POST', '/source-adapter-definitions', {
      token: tenant.manager.token,
      body: { name: 'Bills', mapping: first },
    });
    expect(created.status).toBe(200);
    expect(created.body.adapterVersion).toBe(canonicalHash(first));
    expect(created.body.adapterVersion).toMatch(/^[a-f0-9]{64}$/);
    expect(created.body).toMatchObject({ name: 'Bills', description: null, mapping: first });

    // Key order does not change the version.
    const { value, ...rest } = sheet(form.id);
    const reordered = { sheets: [{ value, ...rest }] };
    expect(canonicalHash(reordered)).toBe(created.body.adapterVersion);

    const second = { sheets: [sheet(form.id, { reduce: 'sum' })] };
    const updated = await api(t, 'PUT', `/source-adapter-definitions/${created.body.id}`, {
      token: tenant.manager.token,
      body: { name: 'Bills 2', description: 'monthly', mapping: second },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.adapterVersion).toBe(canonicalHash(second));
    expect(updated.body.versions.map((v: { adapterVersion: string }) => v.adapterVersion)).toEqual([
      canonicalHash(first),
      canonicalHash(second),
    ]);
    // Saving the first mapping again makes it current without a third version.
    const back = await api(t, 'PUT', `/source-adapter-definitions/${created.body.id}`, {
      token: tenant.manager.token,
      body: { name: 'Bills', mapping: first },
    });
    expect(back.body.adapterVersion).toBe(canonicalHash(first));
    expect(back.body.versions).toHaveLength(2);

    const list = await api(t, 'GET', '/source-adapter-definitions', { token: tenant.owner.token });
    expect(list.body.map((d: { id: string }) => d.id)).toEqual([created.body.id]);
    const got = await api(t, 'GET', `/source-adapter-definitions/${created.body.id}`, {
      token: tenant.manager.token,
    });
    expect(got.body.mapping).toEqual(first);
  });

  it('refuses an invalid mapping with a 400 naming the path', async () => {
    const tenant = await createTenant(t);
    const form = await createForm(t, tenant);
    const post = (mapping: unknown) =>
      api(t, 'POST', '/source-adapter-definitions', {
        token: tenant.owner.token,
        body: { name: 'x', mapping },
      });
    const paths = async (mapping: unknown) => {
      const res = await post(mapping);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return (res.body.issues as { path?: string; message: string }[])
        .map((i) => `${i.path} ${i.message}`)
        .join('\n');
    };
    const { value: _v, ...noValue } = sheet(form.id);
    expect(await paths({ sheets: [noValue] })).toContain('mapping.sheets.0.value');
    expect(await paths({ sheets: [sheet(form.id, { activity: { key: 'a' } })] })).toContain(
      'mapping.sheets.0.activity',
    );
    expect(await paths({ sheets: [sheet(form.id, { draft: 'activity' })] })).toContain(
      'mapping.sheets.0.inputs',
    );
    expect(await paths({ sheets: [sheet(form.id), sheet(form.id)] })).toContain('mapping.sheets.1.sheet');
    expect(await paths({ sheets: [sheet('00000000-0000-4000-8000-000000000000')] })).toContain(
      'mapping.sheets.0.form.id',
    );
    expect(await paths({ sheets: [sheet(form.id, { colour: 'red' })] })).toContain('colour');
    expect(await paths({ sheets: [sheet(form.id, { site: { column: 'S', match: 'zip' } })] })).toContain(
      'mapping.sheets.0.site',
    );
    expect(await paths({ sheets: [] })).toContain('mapping.sheets');
  });

  it('is for managers and owners, and another tenant’s definition is 404', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const form = await createForm(t, tenant);
    const created = await api(t, 'POST', '/source-adapter-definitions', {
      token: tenant.owner.token,
      body: { name: 'x', mapping: { sheets: [sheet(form.id)] } },
    });
    const collector = await api(t, 'GET', '/source-adapter-definitions', { token: tenant.collector.token });
    expect(collector.status).toBe(403);
    const foreign = await api(t, 'GET', `/source-adapter-definitions/${created.body.id}`, {
      token: other.owner.token,
    });
    expect(foreign.status).toBe(404);
  });
});
