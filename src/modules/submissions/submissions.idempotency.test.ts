import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, api, useTestApp } from '../../../test/helpers/app.ts';
import { createSubmissionWorld, type SubmissionWorld } from '../../../test/helpers/submission-world.ts';
import { removeExpiredKeys } from './submissions.keys.ts';

// POST /form-submissions with an Idempotency-Key (decision 194): a retry with the same key and
// body is answered with the first answer and writes nothing; another body is a 409; a refusal
// keeps no key.
const t = useTestApp();
let world: SubmissionWorld;
let tenant: SubmissionWorld['tenant'];

beforeAll(async () => {
  world = await createSubmissionWorld(t);
  ({ tenant } = world);
});

let n = 0;
const newKey = () => `submit-${Date.now()}-${++n}`;

const post = (body: Record<string, unknown>, key: string | undefined, token = tenant.collector.token) =>
  api(t, 'POST', '/form-submissions', {
    token,
    body: { formId: world.form.id, siteId: world.site, year: 2025, ...body },
    ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
  });

const history = async (valueId: string) => {
  const res = await api(t, 'GET', `/form-submissions/values/${valueId}/history`, {
    token: tenant.owner.token,
  });
  expect(res.status).toBe(200);
  return res.body as { action: string }[];
};

/** The keys stored for the world's organization (read outside the tenant, as the cleanup does). */
const storedKeys = () =>
  t.database.system((tx) =>
    tx
      .selectFrom('form_submission_keys')
      .select(['user_id', 'key', 'status'])
      .where('organization_id', '=', tenant.organizationId)
      .execute(),
  );

const replayed = (res: ApiResponse) => res.headers['idempotent-replayed'];

describe('POST /form-submissions: Idempotency-Key', () => {
  it('answers a retry with the same key and body with the first answer, writing nothing', async () => {
    const key = newKey();
    const body = { values: [{ elementKey: 'plain', periodUnit: 1, value: 5 }] };
    const first = await post(body, key);
    expect(first.status).toBe(200);
    expect(replayed(first)).toBeUndefined();
    const again = await post(body, key);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const valueId = first.body.values[0].formElementSubmissionId;
    expect((await history(valueId)).map((h) => h.action)).toEqual(['CREATE']);

    // Someone else changes the value meanwhile: the retry does not put 5 back.
    const owner = await post(
      { values: [{ elementKey: 'plain', periodUnit: 1, value: 7 }] },
      undefined,
      tenant.owner.token,
    );
    expect(owner.status).toBe(200);
    const late = await post(body, key);
    expect(late.status).toBe(200);
    expect(replayed(late)).toBe('true');
    expect(late.body).toEqual(first.body);
    const got = await api(t, 'GET', `/form-submissions/${first.body.id}`, { token: tenant.owner.token });
    expect(got.body.values.find((v: { elementKey: string }) => v.elementKey === 'plain').value).toBe(7);
    expect((await history(valueId)).map((h) => h.action)).toEqual(['CREATE', 'UPDATE']);
    // Without a key nothing changes: the same body is a new request (it stores 5 again).
    const unkeyed = await post(body, undefined);
    expect(replayed(unkeyed)).toBeUndefined();
    expect(unkeyed.body.values[0].value).toBe(5);
  });

  it('refuses the same key with another body (409 naming the header) and writes nothing', async () => {
    const key = newKey();
    const first = await post({ values: [{ elementKey: 'note', periodUnit: 2, value: 'first' }] }, key);
    expect(first.status).toBe(200);
    const other = await post({ values: [{ elementKey: 'note', periodUnit: 2, value: 'second' }] }, key);
    expect(other.status).toBe(409);
    expect(other.body).toEqual({
      code: 'CONFLICT',
      message: expect.stringContaining('different request body'),
      issues: [{ path: 'Idempotency-Key', message: expect.stringContaining('different request body') }],
    });
    const got = await api(t, 'GET', `/form-submissions/${first.body.id}`, { token: tenant.owner.token });
    const note = got.body.values.find(
      (v: { elementKey: string; periodUnit: number }) => v.elementKey === 'note' && v.periodUnit === 2,
    );
    expect(note.value).toBe('first');
    expect((await history(note.formElementSubmissionId)).length).toBe(1);
  });

  it('keeps no key for a refused request: the same key runs afresh, with the same or a corrected body', async () => {
    const key = newKey();
    const before = (await storedKeys()).length;
    const wrong = { values: [{ elementKey: 'plain', periodUnit: 3, value: 'not a number' }] };
    const refused = await post(wrong, key);
    expect(refused.status).toBe(400);
    expect(refused.body.issues[0].path).toBe('values.0.value');
    expect((await storedKeys()).length).toBe(before);
    // The same body again is refused again (not replayed: nothing was stored for it).
    const again = await post(wrong, key);
    expect(again.status).toBe(400);
    expect(replayed(again)).toBeUndefined();
    // The corrected body with the same key is stored, and then holds the key.
    const corrected = { values: [{ elementKey: 'plain', periodUnit: 3, value: 12 }] };
    const stored = await post(corrected, key);
    expect(stored.status).toBe(200);
    expect(replayed(stored)).toBeUndefined();
    expect(stored.body.values[0].value).toBe(12);
    expect(await storedKeys()).toContainEqual({ user_id: tenant.collector.userId, key, status: 200 });
    expect((await post(wrong, key)).status).toBe(409);
  });

  it('keeps each person’s and each organization’s keys apart', async () => {
    const key = newKey();
    const body = { values: [{ elementKey: 'flag', periodUnit: 4, value: true }] };
    const mine = await post(body, key);
    expect(mine.status).toBe(200);
    // The owner's same key (and body) is the owner's own request, not the collector's replay.
    const owners = await post(body, key, tenant.owner.token);
    expect(owners.status).toBe(200);
    expect(replayed(owners)).toBeUndefined();
    // (The value did not change, so it keeps its author; each person holds the key once.)
    const holders = (await storedKeys()).filter((k) => k.key === key).map((k) => k.user_id);
    expect(holders.sort()).toEqual([tenant.collector.userId, tenant.owner.userId].sort());
    // Another organization's person with the same key.
    const elsewhere = await createSubmissionWorld(t);
    const theirs = await api(t, 'POST', '/form-submissions', {
      token: elsewhere.tenant.collector.token,
      headers: { 'idempotency-key': key },
      body: { formId: elsewhere.form.id, siteId: elsewhere.site, year: 2025, ...body },
    });
    expect(theirs.status).toBe(200);
    expect(replayed(theirs)).toBeUndefined();
    expect(theirs.body.organizationId).toBe(elsewhere.tenant.organizationId);
  });

  it('needs a key of 1-200 printable ASCII characters without spaces, when one is sent', async () => {
    const body = { values: [{ elementKey: 'plain', periodUnit: 2, value: 1 }] };
    for (const key of ['', 'has space', 'x'.repeat(201), 'ké']) {
      const res = await post(body, key);
      expect(res.status, key).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(JSON.stringify(res.body.issues)).toContain('idempotency-key');
    }
    expect((await post(body, `~!${'x'.repeat(198)}`)).status).toBe(200);
  });

  it('answers 10 concurrent requests with the same key once: one write, 10 identical answers', async () => {
    const key = newKey();
    const body = { values: [{ elementKey: 'energy', periodUnit: 4, value: 42 }] };
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(body, key)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => replayed(a) === 'true')).toHaveLength(9);
    for (const a of answers) expect(a.body).toEqual(answers[0]!.body);
    const valueId = answers[0]!.body.values[0].formElementSubmissionId;
    expect((await history(valueId)).map((h) => h.action)).toEqual(['CREATE']);
    // The submission was touched once: its updatedAt is the one every answer shows.
    const got = await api(t, 'GET', `/form-submissions/${answers[0]!.body.id}`, {
      token: tenant.owner.token,
    });
    expect(got.body.updatedAt).toBe(answers[0]!.body.updatedAt);
  });

  it('keeps keys 24 hours: the cleanup removes older ones only', async () => {
    const key = newKey();
    expect((await post({ values: [{ elementKey: 'note', periodUnit: 4, value: 'kept' }] }, key)).status).toBe(
      200,
    );
    const mine = async () => (await storedKeys()).filter((k) => k.key === key);
    const now = Date.now();
    await removeExpiredKeys(t.database, new Date(now + 23 * 3600_000));
    expect(await mine()).toHaveLength(1);
    expect(await removeExpiredKeys(t.database, new Date(now + 25 * 3600_000))).toBeGreaterThan(0);
    expect(await mine()).toHaveLength(0);
    // Gone, the key is free again: the same body runs afresh.
    const fresh = await post({ values: [{ elementKey: 'note', periodUnit: 4, value: 'kept' }] }, key);
    expect(fresh.status).toBe(200);
    expect(replayed(fresh)).toBeUndefined();
  });
});
