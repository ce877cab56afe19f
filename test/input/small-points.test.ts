import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../helpers/app.ts';
import { createSubmissionWorld, type SubmissionWorld } from '../helpers/submission-world.ts';

/** The small points of issue 17.6 (the DELETE without a body is in no-500.test.ts, unmarking in the markers tests). */
const t = useTestApp();
let world: SubmissionWorld;

beforeAll(async () => {
  world = await createSubmissionWorld(t);
});

describe('small points', () => {
  it('values: [] changes nothing, not even updatedAt', async () => {
    const first = await world.submit({ values: [{ elementKey: 'plain', periodUnit: 1, value: 1 }] });
    expect(first.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const empty = await world.submit({ values: [] });
    expect(empty.status).toBe(200);
    expect(empty.body.id).toBe(first.body.id);
    expect(empty.body.updatedAt).toBe(first.body.updatedAt);
    const stored = await api(t, 'GET', `/form-submissions/${first.body.id}`, {
      token: world.tenant.owner.token,
    });
    expect(stored.body.updatedAt).toBe(first.body.updatedAt);
  });

  it('the review route says which id it takes', () => {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, { description?: string }>> };
    const review = doc.paths['/api/v1/form-submissions/values/{id}/review']!['post']!;
    expect(review.description).toMatch(/formElementSubmissionId/);
  });
});
