import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActivityWorld, createActivityWorld } from '../../../test/helpers/activity-world.ts';
import { useTestApp } from '../../../test/helpers/app.ts';
import { buildActivity, buildTenant } from '../../../test/helpers/builders.ts';
import type { Tenant } from '../../../test/helpers/factories.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
let w: ActivityWorld;
let tenant: Tenant;
let other: Tenant;
let hiddenSite: string;
let period = 0;

afterAll(() => shutdownSandbox());

const CALC = [
  "if (inputs.kind === 'broken') throw new Error('no factor for broken');",
  "const factor = inputs.kind === 'car' ? 0.2 : 0.1;",
  'return { value: inputs.km * factor, metadata: { factor, who: inputs.who ?? null } };',
].join('\n');

/** Enters a new period with these inputs (as the owner); answers the value item. */
const enter = (inputs: Record<string, unknown>[], siteId = w.site) => w.enter(++period, inputs, { siteId });
const patch = (id: string, input: unknown, token = tenant.collector.token) =>
  w.api.patch(`/activities/${id}`, { token, body: { input } });
const valueRow = (id: string) =>
  t.database.tenant(tenant.organizationId, (tx) =>
    tx
      .selectFrom('form_element_submissions')
      .select(['value', 'numeric_value', 'status', 'user_id'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow(),
  );

beforeAll(async () => {
  w = await createActivityWorld(t, {
    site: { name: 'Office', assign: ['manager', 'collector', 'viewer'] },
    others: [{ name: 'Elsewhere' }],
    definition: {
      key: 'trips',
      inputs: [
        { name: 'kind', type: 'string', required: true },
        { name: 'km', type: 'number', required: true },
        { name: 'who', type: 'string' },
      ],
      calcCode: CALC,
    },
  });
  tenant = w.tenant;
  hiddenSite = w.others[0]!;
  other = await buildTenant(t);
});

describe('GET /activities/{activityId}/history', () => {
  it('is a 404 for activities on sites the reader cannot see, unknown or malformed ids', async () => {
    const item = await enter([{ kind: 'car', km: 5 }], hiddenSite);
    const hidden = item.activities[0]!.activityId;
    expect((await w.api.get(`/activities/${hidden}/history`, { token: tenant.owner.token })).status).toBe(
      200,
    );
    for (const id of [hidden, '00000000-0000-4000-8000-000000000000', 'nope']) {
      expect((await w.api.get(`/activities/${id}/history`, { token: tenant.viewer.token })).status).toBe(404);
    }
  });
});

describe('PATCH /activities/{activityId}', () => {
  it('merges the input (sent fields win, others kept, null clears) and calculates again', async () => {
    const item = await enter([
      { kind: 'car', km: 100, who: 'Ann' },
      { kind: 'bus', km: 10 },
    ]);
    const id = item.activities[0]!.activityId;

    const res = await patch(id, { km: 50, who: null });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      value: 10,
      input: { kind: 'car', km: 50 },
      metadata: { factor: 0.2, who: null },
    });
    const row = await valueRow(item.formElementSubmissionId);
    expect(row.value).toEqual([
      { kind: 'car', km: 50 },
      { kind: 'bus', km: 10 },
    ]);
    expect(row.numeric_value).toBe(11);
    expect(row.user_id).toBe(tenant.collector.userId);
  });

  it('resets the value’s review status to COMPLETED and records both histories', async () => {
    const item = await enter([{ kind: 'car', km: 10 }]);
    const id = item.activities[0]!.activityId;
    const reviewed = await w.api.post(`/form-submissions/values/${item.formElementSubmissionId}/review`, {
      token: tenant.manager.token,
      body: { status: 'APPROVED' },
    });
    expect(reviewed.body.status).toBe('APPROVED');

    await patch(id, { kind: 'bus' });

    expect((await valueRow(item.formElementSubmissionId)).status).toBe('COMPLETED');
    const history = await w.api.get(`/form-submissions/values/${item.formElementSubmissionId}/history`, {
      token: tenant.viewer.token,
    });
    expect(history.json().map((h) => h.action)).toEqual(['CREATE', 'REVIEW', 'UPDATE']);
    const own = await w.api.get(`/activities/${id}/history`, { token: tenant.viewer.token });
    expect(own.status).toBe(200);
    expect(own.json().map((h) => h.action)).toEqual(['CREATE', 'UPDATE']);
    expect(own.body[1]).toMatchObject({
      userId: tenant.collector.userId,
      before: { input: { kind: 'car', km: 10 } },
      after: { input: { kind: 'bus', km: 10 } },
    });
    expect(history.body[2]).toMatchObject({
      before: { value: [{ kind: 'car', km: 10 }], status: 'APPROVED' },
      after: { value: [{ kind: 'bus', km: 10 }], status: 'COMPLETED' },
      userId: tenant.collector.userId,
    });
    const activityHistory = await t.database.tenant(tenant.organizationId, (tx) =>
      tx
        .selectFrom('activity_history')
        .select(['action', 'before', 'after'])
        .where('activity_id', '=', id)
        .orderBy('seq')
        .execute(),
    );
    expect(activityHistory).toEqual([
      { action: 'CREATE', before: null, after: expect.objectContaining({ value: 2 }) },
      {
        action: 'UPDATE',
        before: expect.objectContaining({ value: 2 }),
        after: { input: { kind: 'bus', km: 10 }, value: 1, metadata: { factor: 0.1, who: null } },
      },
    ]);
  });

  it('updates the submission’s updatedAt, as a submission request does; a patch changing nothing does not', async () => {
    const item = await enter([{ kind: 'car', km: 10 }]);
    const old = new Date('2025-01-01T00:00:00.000Z');
    const submission = await t.database.system((tx) =>
      tx
        .updateTable('form_submissions')
        .set({ updated_at: old })
        .where('id', '=', (eb) =>
          eb
            .selectFrom('form_element_submissions')
            .select('form_submission_id')
            .where('id', '=', item.formElementSubmissionId),
        )
        .returning('id')
        .executeTakeFirstOrThrow(),
    );
    const updatedAt = async () =>
      (await w.api.get(`/form-submissions/${submission.id}`, { token: tenant.viewer.token })).body
        .updatedAt as string;
    const unchanged = await patch(item.activities[0]!.activityId, { km: 10 });
    expect(unchanged.status).toBe(200);
    expect(await updatedAt()).toBe(old.toISOString());

    const res = await patch(item.activities[0]!.activityId, { km: 20 });

    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['input', 'metadata', 'value']);
    const got = await w.api.get(`/form-submissions/${submission.id}`, { token: tenant.viewer.token });
    expect(Date.parse(got.body.updatedAt)).toBeGreaterThan(old.getTime());
    // Both written by the PATCH's transaction.
    const value = got.body.values.find(
      (v: any) => v.formElementSubmissionId === item.formElementSubmissionId,
    );
    expect(got.body.updatedAt).toBe(value.recordedAt);
    const stored = await valueRow(item.formElementSubmissionId);
    expect(stored.value).toEqual([{ kind: 'car', km: 20 }]);
  });

  it('writes nothing when the merged input gives the same result', async () => {
    const item = await enter([{ kind: 'car', km: 10 }]);
    const reviewed = await w.api.post(`/form-submissions/values/${item.formElementSubmissionId}/review`, {
      token: tenant.manager.token,
      body: { status: 'APPROVED' },
    });
    expect(reviewed.status).toBe(200);

    const res = await patch(item.activities[0]!.activityId, { km: 10 });

    expect(res.status).toBe(200);
    expect(res.body.value).toBe(2);
    expect((await valueRow(item.formElementSubmissionId)).status).toBe('APPROVED');
  });

  it('answers 400 naming the input for invalid fields, and changes nothing', async () => {
    const item = await enter([{ kind: 'car', km: 10 }]);
    const id = item.activities[0]!.activityId;

    const wrongType = await patch(id, { km: 'ten' });
    const unknown = await patch(id, { colour: 'red' });
    const cleared = await patch(id, { km: null });
    const notObject = await w.api.patch(`/activities/${id}`, {
      token: tenant.collector.token,
      body: { input: [1] },
    });

    expect(wrongType.status).toBe(400);
    expect(wrongType.body.issues).toEqual([
      {
        path: 'input.km',
        message: 'input.km must be a finite number',
        code: 'activity.inputType',
        params: { input: 'km', type: 'number' },
      },
    ]);
    expect(unknown.body.issues).toMatchObject([{ path: 'input.colour' }]);
    expect(cleared.body.issues).toEqual([
      {
        path: 'input.km',
        message: 'input.km is required',
        code: 'activity.inputRequired',
        params: { input: 'km' },
      },
    ]);
    expect(notObject.status).toBe(400);
    expect((await valueRow(item.formElementSubmissionId)).value).toEqual([{ kind: 'car', km: 10 }]);
  });

  it('answers 400 with the calculation’s message when it fails, and changes nothing', async () => {
    const item = await enter([{ kind: 'car', km: 10 }]);

    const res = await patch(item.activities[0]!.activityId, { kind: 'broken' });

    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([
      { path: 'input', message: expect.stringMatching(/no factor for broken/) },
    ]);
    const row = await valueRow(item.formElementSubmissionId);
    expect(row).toMatchObject({ value: [{ kind: 'car', km: 10 }], numeric_value: 2 });
  });

  it('answers 404 for unknown, malformed and other tenants’ ids, and for sites outside the caller’s scope', async () => {
    const hidden = await enter([{ kind: 'car', km: 1 }], hiddenSite);
    const foreign = await buildActivity(t, { tenant: other, definition: { key: 'x' } });

    const ids = [
      '00000000-0000-4000-8000-000000000000',
      'not-a-uuid',
      foreign.activityId,
      hidden.activities[0]!.activityId,
    ];
    for (const id of ids) {
      const res = await patch(id, { km: 1 });
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('answers 403 to viewers', async () => {
    const item = await enter([{ kind: 'car', km: 10 }]);

    const res = await patch(item.activities[0]!.activityId, { km: 1 }, tenant.viewer.token);

    expect(res.status).toBe(403);
  });

  it('answers 404 once the value holding the activity is deleted', async () => {
    const item = await enter([{ kind: 'car', km: 10 }]);
    const removed = await w.submit([w.entry(period, null)], { token: tenant.owner.token });
    expect(removed.status).toBe(200);

    const res = await patch(item.activities[0]!.activityId, { km: 1 });

    expect(res.status).toBe(404);
  });
});
