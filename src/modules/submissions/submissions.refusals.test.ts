import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { activateForm, createForm, createSite, createTenant } from '../../../test/helpers/factories.ts';
import { createSubmissionWorld, type SubmissionWorld } from '../../../test/helpers/submission-world.ts';

const t = useTestApp();
let world: SubmissionWorld;
let tenant: SubmissionWorld['tenant'];
let site: string;
let form: SubmissionWorld['form'];
let units: SubmissionWorld['units'];

const submit = (body: Record<string, unknown>, token?: string) => world.submit(body, token);
const elementId = (key: string) => world.elementId(key);
const paths = (body: { issues?: { path: string }[] }) => (body.issues ?? []).map((i) => i.path);

beforeAll(async () => {
  world = await createSubmissionWorld(t);
  ({ tenant, site, form, units } = world);
});

describe('POST /form-submissions: refusals', () => {
  it('400 naming each invalid value, and nothing is written', async () => {
    const res = await submit({
      values: [
        { elementKey: 'note', periodUnit: 1, value: 'would be written' },
        { elementKey: 'plain', periodUnit: 1, value: '3' },
        { elementKey: 'note', periodUnit: 2, value: 5 },
        { elementKey: 'flag', periodUnit: 1, value: 'yes' },
        { elementKey: 'kind', periodUnit: 1, value: 'c' },
        { elementKey: 'day', periodUnit: 1, value: '2025-02-30' },
        { elementKey: 'doc', periodUnit: 1, value: 'file.pdf' },
        { elementKey: 'note', periodUnit: 3, value: 'x'.repeat(10_001) },
        { elementKey: 'plain', periodUnit: 5, value: 1 },
        { elementKey: 'plain', value: 1 },
        { elementKey: 'note', periodUnit: 1, value: 'duplicate slot' },
        { elementKey: 'event', value: 1 },
        { elementKey: 'event', timestamp: '2024-12-31T23:00:00Z', value: 1 },
        { elementKey: 'event', timestamp: '2025-03-01T00:00:00Z', periodUnit: 4, value: 1 },
        { elementKey: 'note', periodUnit: 1, timestamp: '2025-03-01T00:00:00Z', value: 'x' },
        { elementKey: 'energy', periodUnit: 1, value: 1, selectedUnitId: units['kg'] },
        { elementKey: 'plain', periodUnit: 1, value: 1, selectedUnitId: units['kWh'] },
        { elementKey: 'note', periodUnit: 4, value: 'x', selectedUnitId: units['kWh'] },
        {
          elementKey: 'energy',
          periodUnit: 2,
          value: 1,
          selectedUnitId: '00000000-0000-4000-8000-000000000000',
        },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(paths(res.body)).toEqual([
      'values.1.value',
      'values.2.value',
      'values.3.value',
      'values.4.value',
      'values.5.value',
      'values.6.value',
      'values.7.value',
      'values.8.periodUnit',
      'values.9.periodUnit',
      'values.10',
      'values.11.timestamp',
      'values.12.timestamp',
      'values.13.periodUnit',
      'values.14.timestamp',
      'values.15.selectedUnitId',
      'values.16.selectedUnitId',
      'values.17.selectedUnitId',
      'values.18.selectedUnitId',
    ]);
    const stored = await t.database.system((tx) =>
      tx
        .selectFrom('form_element_submissions')
        .select('id')
        .where(sql<boolean>`value = ${JSON.stringify('would be written')}::jsonb`)
        .execute(),
    );
    expect(stored).toEqual([]);
  });

  it('400 when elements match nothing, several, or are named in no or several ways', async () => {
    const res = await submit({
      values: [
        { elementKey: 'missing', periodUnit: 1, value: 1 },
        { elementId: '00000000-0000-4000-8000-000000000000', periodUnit: 1, value: 1 },
        { elementMetadataKey: 'group', elementMetadataValue: 'g', periodUnit: 1, value: 'x' },
        { elementMetadataKey: 'group', elementMetadataValue: 'none', periodUnit: 1, value: 'x' },
      ],
    });
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual([
      'values.0.elementKey',
      'values.1.elementId',
      'values.2.elementMetadataValue',
      'values.3.elementMetadataValue',
    ]);
    // The ways of naming an element are alternatives of the body's schema: checked first.
    const named = await submit({
      values: [
        { periodUnit: 1, value: 1 },
        { elementKey: 'note', elementId: elementId('note'), periodUnit: 1, value: 'x' },
        { elementMetadataKey: 'group', periodUnit: 1, value: 'x' },
      ],
    });
    expect(named.status, JSON.stringify(named.body)).toBe(400);
    expect(named.body.issues).toMatchObject([
      { path: 'values.0.elementKey', message: 'values.0.elementKey is required' },
      {
        path: 'values.1',
        message:
          'values.1 must name its element one way only: elementId, elementKey, or elementMetadataKey and elementMetadataValue',
      },
      { path: 'values.2.elementMetadataValue', message: 'values.2.elementMetadataValue is required' },
    ]);
  });

  it('400 when form or site are missing, ambiguous, unknown or named twice', async () => {
    const otherSite = await createSite(t, tenant.organizationId, { metadata: { erp: 'S-dup' } });
    await createSite(t, tenant.organizationId, { metadata: { erp: 'S-dup' } });
    const other = await createTenant(t);
    const theirs = await createForm(t, other);
    const v = [{ elementKey: 'note', periodUnit: 1, value: 'x' }];
    const cases: [Record<string, unknown>, string][] = [
      [{ formId: undefined }, 'formId'],
      [{ formId: theirs.id }, 'formId'],
      [{ formId: 'nope' }, 'formId'],
      [{ formMetadataKey: 'code', formMetadataValue: 'Q-FORM' }, 'formId'],
      [{ formId: undefined, formMetadataKey: 'code' }, 'formMetadataValue'],
      [{ formId: undefined, formMetadataKey: 'code', formMetadataValue: 'none' }, 'formMetadataValue'],
      [{ siteId: undefined }, 'siteId'],
      [{ siteId: otherSite, siteMetadataKey: 'erp', siteMetadataValue: 'S-1' }, 'siteId'],
      [{ siteId: undefined, siteMetadataKey: 'erp', siteMetadataValue: 'S-dup' }, 'siteMetadataValue'],
      [{ siteId: '00000000-0000-4000-8000-000000000000' }, 'siteId'],
      [{ year: 2024 }, 'year'],
      [{ year: 1800 }, 'year'],
    ];
    for (const [body, path] of cases) {
      const res = await submit({ values: v, ...body }, tenant.owner.token);
      expect(res.status, path).toBe(400);
      expect(paths(res.body), JSON.stringify(body)).toEqual([path]);
    }
  });

  it('refuses extra and uncoerced fields', async () => {
    const bad = await submit({ values: [{ elementKey: 'plain', periodUnit: '1', value: 1 }] });
    expect(bad.status).toBe(400);
    expect(paths(bad.body)).toEqual(['values.0.periodUnit']);
    const extra = await submit({ values: [{ elementKey: 'plain', periodUnit: 1, value: 1, unit: 'kg' }] });
    expect(extra.status).toBe(400);
    expect(paths(extra.body)).toEqual(['values.0.unit']);
  });

  it('403 for viewers and for sites outside the collector’s scope; 401 without a credential', async () => {
    const v = [{ elementKey: 'note', periodUnit: 1, value: 'x' }];
    expect((await submit({ values: v }, tenant.viewer.token)).status).toBe(403);
    const outside = await createSite(t, tenant.organizationId);
    await activateForm(t, tenant, form.id, [site, outside], [2025]);
    const res = await submit({ siteId: outside, values: v });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    expect((await api(t, 'POST', '/form-submissions', { body: { year: 2025, values: [] } })).status).toBe(
      401,
    );
  });

  it('400 when the form-site is inactive', async () => {
    const later = await createSite(t, tenant.organizationId);
    const res = await submit({ siteId: later, values: [] }, tenant.owner.token);
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual(['year']);
  });
});
