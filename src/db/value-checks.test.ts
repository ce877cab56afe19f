import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers/app.ts';
import { createSubmissionWorld } from '../../test/helpers/submission-world.ts';

const t = useTestApp();

/**
 * Values and their history are checked once per statement (migration 0019) instead of by
 * per-row foreign keys: a row naming anything that does not exist fails the whole statement
 * with the foreign-key SQLSTATE, whatever else the statement wrote.
 */
describe('value and history rows name what exists', () => {
  async function world() {
    const w = await createSubmissionWorld(t);
    const res = await w.submit({ values: [{ elementKey: 'plain', periodUnit: 1, value: 1 }] });
    expect(res.status).toBe(200);
    const value = res.body.values[0];
    return { w, submissionId: res.body.id as string, valueId: value.formElementSubmissionId as string };
  }

  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('the statement was accepted');
      },
      (error: { code?: string; message: string }) => error,
    );

  it('a value of an unknown submission, element, user or unit is refused, with the rows beside it', async () => {
    const { w, submissionId } = await world();
    const org = w.tenant.organizationId;
    const good = {
      organization_id: org,
      form_submission_id: submissionId,
      site_id: w.site,
      year: 2025,
      element_id: w.elementId('plain'),
      period_unit: 2,
      value: sql`'5'::jsonb`,
      numeric_value: 5,
      user_id: w.tenant.owner.userId,
    };
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['submission', { form_submission_id: randomUUID() }, /submission/],
      ['element', { element_id: randomUUID() }, /form element/],
      ['user', { user_id: randomUUID() }, /user/],
      ['unit', { selected_unit_id: randomUUID() }, /unit/],
    ];
    for (const [what, change, message] of cases) {
      const error = await failure(
        t.database.tenant(org, (tx) =>
          tx
            .insertInto('form_element_submissions')
            .values([
              { ...good, period_unit: 3 },
              { ...good, ...change },
            ] as never)
            .execute(),
        ),
      );
      expect(error.code, what).toBe('23503');
      expect(error.message, what).toMatch(message);
    }
    // Nothing of the refused statements stayed: only the submitted value exists.
    const rows = await t.database.tenant(org, (tx) =>
      tx.selectFrom('form_element_submissions').select('period_unit').execute(),
    );
    expect(rows).toEqual([{ period_unit: 1 }]);
  });

  it('an update to an unknown user is refused; a known one passes', async () => {
    const { w, valueId } = await world();
    const org = w.tenant.organizationId;
    const update = (userId: string) =>
      t.database.tenant(org, (tx) =>
        tx
          .updateTable('form_element_submissions')
          .set({ user_id: userId })
          .where('id', '=', valueId)
          .execute(),
      );
    expect((await failure(update(randomUUID()))).code).toBe('23503');
    await update(w.tenant.viewer.userId);
    const row = await t.database.tenant(org, (tx) =>
      tx
        .selectFrom('form_element_submissions')
        .select('user_id')
        .where('id', '=', valueId)
        .executeTakeFirstOrThrow(),
    );
    expect(row.user_id).toBe(w.tenant.viewer.userId);
  });

  it('a history row of an unknown value or user is refused', async () => {
    const { w, valueId } = await world();
    const org = w.tenant.organizationId;
    const insert = (valueRef: string, userId: string) =>
      t.database.tenant(org, (tx) =>
        tx
          .insertInto('form_value_history')
          .values({ organization_id: org, value_id: valueRef, action: 'REVIEW', user_id: userId })
          .execute(),
      );
    const unknownValue = await failure(insert(randomUUID(), w.tenant.owner.userId));
    expect(unknownValue.code).toBe('23503');
    expect(unknownValue.message).toMatch(/value/);
    const unknownUser = await failure(insert(valueId, randomUUID()));
    expect(unknownUser.code).toBe('23503');
    expect(unknownUser.message).toMatch(/user/);
    await insert(valueId, w.tenant.owner.userId);
    const history = await t.database.tenant(org, (tx) =>
      tx
        .selectFrom('form_value_history')
        .select('action')
        .where('value_id', '=', valueId)
        .orderBy('seq')
        .execute(),
    );
    expect(history.map((h) => h.action)).toEqual(['CREATE', 'REVIEW']);
  });

  it('another organization’s submission is as unknown as a missing one', async () => {
    const a = await world();
    const b = await world();
    const error = await failure(
      t.database.tenant(a.w.tenant.organizationId, (tx) =>
        tx
          .insertInto('form_element_submissions')
          .values({
            organization_id: a.w.tenant.organizationId,
            form_submission_id: b.submissionId,
            site_id: a.w.site,
            year: 2025,
            element_id: a.w.elementId('plain'),
            period_unit: 4,
            value: sql`'1'::jsonb`,
            user_id: a.w.tenant.owner.userId,
          } as never)
          .execute(),
      ),
    );
    expect(error.code).toBe('23503');
  });
});
