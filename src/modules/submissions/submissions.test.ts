import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { activateForm, createSite } from '../../../test/helpers/factories.ts';
import { createUploadedMedia } from '../../../test/helpers/media.ts';
import { createSubmissionWorld, type SubmissionWorld } from '../../../test/helpers/submission-world.ts';

const t = useTestApp();
let world: SubmissionWorld;
let tenant: SubmissionWorld['tenant'];
let site: string;
let form: SubmissionWorld['form'];
let units: SubmissionWorld['units'];

const submit = (body: Record<string, unknown>, token?: string) => world.submit(body, token);
const elementId = (key: string) => world.elementId(key);

beforeAll(async () => {
  world = await createSubmissionWorld(t);
  ({ tenant, site, form, units } = world);
});

describe('POST /form-submissions: writing', () => {
  it('creates the one submission of (form, site, year), then updates it', async () => {
    const first = await submit({
      values: [
        { elementKey: 'note', periodUnit: 1, value: 'hello' },
        { elementId: elementId('flag'), periodUnit: 2, value: true },
      ],
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      organizationId: tenant.organizationId,
      formId: form.id,
      siteId: site,
      year: 2025,
      userId: tenant.collector.userId,
      deletedAt: null,
    });
    expect(first.body.values).toEqual([
      {
        formElementSubmissionId: expect.any(String),
        elementId: elementId('note'),
        elementKey: 'note',
        periodUnit: 1,
        timestamp: null,
        status: 'COMPLETED',
        value: 'hello',
        originalValue: null,
        selectedUnitId: null,
        userId: tenant.collector.userId,
        userName: expect.any(String),
        userEmail: tenant.collector.email,
        userImage: null,
        recordedAt: expect.any(String),
        deletedAt: null,
      },
      expect.objectContaining({ elementKey: 'flag', periodUnit: 2, value: true }),
    ]);
    const second = await submit(
      { values: [{ elementKey: 'note', periodUnit: 1, value: 'changed' }] },
      tenant.owner.token,
    );
    expect(second.body.id).toBe(first.body.id);
    expect(second.body.formSiteId).toBe(first.body.formSiteId);
    expect(second.body.values[0].formElementSubmissionId).toBe(first.body.values[0].formElementSubmissionId);
    expect(second.body.values[0]).toMatchObject({ value: 'changed', userId: tenant.owner.userId });

    const got = await api(t, 'GET', `/form-submissions/${first.body.id}`, { token: tenant.viewer.token });
    expect(got.status).toBe(200);
    expect(
      got.body.values.map((v: { elementKey: string; value: unknown }) => [v.elementKey, v.value]),
    ).toEqual([
      ['note', 'changed'],
      ['flag', true],
    ]);
  });

  it('finds form, site and elements by metadata', async () => {
    const res = await api(t, 'POST', '/form-submissions', {
      token: tenant.collector.token,
      body: {
        formMetadataKey: 'code',
        formMetadataValue: 'Q-FORM',
        siteMetadataKey: 'erp',
        siteMetadataValue: 'S-1',
        year: 2025,
        values: [{ elementMetadataKey: 'ext', elementMetadataValue: 'E', periodUnit: 3, value: 12.5 }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.values[0]).toMatchObject({ elementId: elementId('energy'), periodUnit: 3, value: 12.5 });
  });

  it('converts NUMBER values from selectedUnitId into the element’s unit', async () => {
    const res = await submit({
      values: [{ elementKey: 'energy', periodUnit: 4, value: 2.5, selectedUnitId: units['MWh'] }],
    });
    expect(res.status).toBe(200);
    expect(res.body.values[0]).toMatchObject({
      value: 2500,
      originalValue: 2.5,
      selectedUnitId: units['MWh'],
    });
    const stored = await t.database.system((tx) =>
      tx
        .selectFrom('form_element_submissions')
        .select(['numeric_value', 'original_value'])
        .where('id', '=', res.body.values[0].formElementSubmissionId)
        .executeTakeFirstOrThrow(),
    );
    expect(stored).toEqual({ numeric_value: 2500, original_value: 2.5 });
  });

  it('accepts each type’s valid values', async () => {
    const media = await createUploadedMedia(t, tenant.organizationId, tenant.collector.userId);
    const res = await submit({
      values: [
        { elementKey: 'plain', periodUnit: 1, value: -3 },
        { elementKey: 'kind', periodUnit: 1, value: 'b' },
        { elementKey: 'day', periodUnit: 1, value: '2025-03-31' },
        { elementKey: 'doc', periodUnit: 1, value: media.toUpperCase() },
        { elementKey: 'event', timestamp: '2025-05-02T10:00:00+02:00', value: { reading: 7 } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.values.map((v: { value: unknown }) => v.value)).toEqual([
      -3,
      'b',
      '2025-03-31',
      media,
      { reading: 7 },
    ]);
    expect(res.body.values[4]).toMatchObject({ periodUnit: 5, timestamp: '2025-05-02T08:00:00.000Z' });
  });

  it('null clears a value: the row is kept as deleted and shown with deletedAt', async () => {
    const written = await submit({ values: [{ elementKey: 'plain', periodUnit: 2, value: 1 }] });
    const id = written.body.values[0].formElementSubmissionId;
    const cleared = await submit({ values: [{ elementKey: 'plain', periodUnit: 2, value: null }] });
    expect(cleared.status).toBe(200);
    expect(cleared.body.values[0]).toMatchObject({
      formElementSubmissionId: id,
      value: null,
      deletedAt: expect.any(String),
    });
    const got = await api(t, 'GET', `/form-submissions/${written.body.id}`, { token: tenant.owner.token });
    expect(
      got.body.values.map((v: { formElementSubmissionId: string }) => v.formElementSubmissionId),
    ).not.toContain(id);
    const again = await submit({ values: [{ elementKey: 'plain', periodUnit: 2, value: 4 }] });
    expect(again.body.values[0]).toMatchObject({ formElementSubmissionId: id, value: 4, deletedAt: null });
  });

  it('leaves deletions that find no live value out of the answer', async () => {
    const stored = await submit({ values: [{ elementKey: 'plain', periodUnit: 4, value: 8 }] });
    const id = stored.body.values[0].formElementSubmissionId;
    const res = await submit({
      values: [
        { elementKey: 'plain', periodUnit: 3, value: null },
        { elementKey: 'plain', periodUnit: 4, value: null },
        { elementKey: 'event', timestamp: '2025-07-01T00:00:00Z', value: null },
        { elementKey: 'note', periodUnit: 4, value: 'kept' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.values).toEqual([
      expect.objectContaining({
        formElementSubmissionId: id,
        elementKey: 'plain',
        periodUnit: 4,
        status: 'COMPLETED',
        value: null,
        recordedAt: expect.any(String),
        deletedAt: expect.any(String),
      }),
      expect.objectContaining({ elementKey: 'note', value: 'kept', status: 'COMPLETED' }),
    ]);
    // Deleting it again finds nothing live: a no-op, also left out.
    const again = await submit({ values: [{ elementKey: 'plain', periodUnit: 4, value: null }] });
    expect(again.status).toBe(200);
    expect(again.body.values).toEqual([]);
    const history = await api(t, 'GET', `/form-submissions/values/${id}/history`, {
      token: tenant.owner.token,
    });
    expect(history.body.map((h: { action: string }) => h.action)).toEqual(['CREATE', 'DELETE']);
  });
});

describe('POST /form-submissions: TIMESTAMP times', () => {
  it('accepts ISO 8601 times without offset (UTC), dates alone (midnight UTC) and any offset form', async () => {
    const res = await submit({
      values: [
        { elementKey: 'event', timestamp: '2025-08-01T10:00:00', value: 1 },
        { elementKey: 'event', timestamp: '2025-08-01T10:00:00.5', value: 2 },
        { elementKey: 'event', timestamp: '2025-08-02', value: 3 },
        { elementKey: 'event', timestamp: '2025-08-03T12:00:00+0200', value: 4 },
        { elementKey: 'event', timestamp: '2025-08-04T12:00:00Z', value: 5 },
      ],
    });
    expect(res.status).toBe(200);
    expect(
      res.body.values.map((v: { timestamp: string; periodUnit: number }) => [v.timestamp, v.periodUnit]),
    ).toEqual([
      ['2025-08-01T10:00:00.000Z', 8],
      ['2025-08-01T10:00:00.500Z', 8],
      ['2025-08-02T00:00:00.000Z', 8],
      ['2025-08-03T10:00:00.000Z', 8],
      ['2025-08-04T12:00:00.000Z', 8],
    ]);
    // The same instant written with an offset is the same record.
    const same = await submit({
      values: [{ elementKey: 'event', timestamp: '2025-08-01T12:00:00+02:00', value: 9 }],
    });
    expect(same.body.values[0]).toMatchObject({
      formElementSubmissionId: res.body.values[0].formElementSubmissionId,
      value: 9,
    });
  });

  it('400 naming values.N.timestamp for what is not an ISO 8601 time, and nothing is written', async () => {
    const res = await submit({
      values: [
        { elementKey: 'event', timestamp: '2025-09-01T10:00:00Z', value: 'not written' },
        { elementKey: 'event', timestamp: 'garbage', value: 1 },
        { elementKey: 'event', timestamp: '2025-02-30', value: 1 },
        { elementKey: 'event', timestamp: '2025-09-01T25:00:00', value: 1 },
        { elementKey: 'event', timestamp: '2025-09-01T10:00:00+2', value: 1 },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual(
      [1, 2, 3, 4].map((n) => ({
        path: `values.${n}.timestamp`,
        message: expect.stringContaining(`values.${n}.timestamp`),
        code: 'value.timestampInvalid',
      })),
    );
    const got = await api(t, 'GET', `/form-submissions?formId=${form.id}`, { token: tenant.owner.token });
    const values = got.body.items.flatMap((i: { values: { value: unknown }[] }) => i.values);
    expect(values.map((v: { value: unknown }) => v.value)).not.toContain('not written');
  });
});

describe('POST /form-submissions: concurrency', () => {
  it('concurrent writes of one new (form, site, year) make one submission and one value with its full history', async () => {
    const fresh = await createSite(t, tenant.organizationId);
    await activateForm(t, tenant, form.id, [site, fresh], [2025]);
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        submit(
          { siteId: fresh, values: [{ elementKey: 'plain', periodUnit: 1, value: n }] },
          tenant.owner.token,
        ),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const valueIds = new Set(results.map((r) => r.body.values[0].formElementSubmissionId));
    expect(valueIds.size).toBe(1);
    const [valueId] = [...valueIds];
    const history = await api(t, 'GET', `/form-submissions/values/${valueId}/history`, {
      token: tenant.owner.token,
    });
    expect(history.body.map((h: { action: string }) => h.action)).toEqual([
      'CREATE',
      'UPDATE',
      'UPDATE',
      'UPDATE',
      'UPDATE',
    ]);
  });
});
