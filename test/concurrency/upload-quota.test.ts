import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { Database } from '../../src/db/client.ts';
import { api, type TestContext } from '../helpers/app.ts';
import { createTenant, type Tenant } from '../helpers/factories.ts';
import { multipart, postForm, useMediaApp } from '../helpers/media-world.ts';

/**
 * Issue 25, item 4: the storage quota under parallel uploads. Upload URLs reserve their declared
 * size until they expire, and completing an upload checks the quota again, one at a time. In
 * PostgreSQL mode every other request goes to a second app (its own pool), as a second process.
 */
const KiB = 1024;
const t = useMediaApp({ mediaQuotaBytes: 1024 * KiB });
let second: { app: FastifyInstance; database: Database } | undefined;
let tenant: Tenant;

const via = (i: number): TestContext => (second && i % 2 === 1 ? { ...t, app: second.app } : t);
const presign = (ctx: TestContext, fileSize: number) =>
  api(ctx, 'POST', '/media/presigned-url', {
    token: tenant.collector.token,
    body: { fileName: 'photo.png', entityId: 'e', fieldName: 'f', fileSize },
  });
const upload = (ctx: TestContext, presigned: { url: string; fields: Record<string, string> }, size: number) =>
  postForm(
    ctx.app,
    presigned.url,
    multipart(Object.entries(presigned.fields), { data: Buffer.alloc(size, 1) }),
  );
const storedBytes = async () =>
  Number(
    (
      await t.database.system((tx) =>
        tx
          .selectFrom('media')
          .select((eb) => eb.fn.coalesce(eb.fn.sum('size'), eb.val(0)).as('total'))
          .where('organization_id', '=', tenant.organizationId)
          .where('status', '=', 'uploaded')
          .executeTakeFirstOrThrow(),
      )
    ).total,
  );

beforeAll(async () => {
  tenant = await createTenant(t);
  if (t.url) {
    const database = await Database.open({ databaseUrl: t.url });
    const app = await buildApp({ database, config: t.config, clock: () => t.now });
    await app.ready();
    second = { app, database };
  }
});
afterAll(async () => {
  await second?.app.close();
  await second?.database.close();
});

describe('the storage quota under parallel uploads', () => {
  it('5 parallel upload URLs of 900 KiB against 1 MiB: one is handed out, one file is stored', async () => {
    const urls = await Promise.all(Array.from({ length: 5 }, (_, i) => presign(via(i), 900 * KiB)));
    const given = urls.filter((r) => r.status === 200);
    expect(given).toHaveLength(1);
    for (const refused of urls.filter((r) => r.status !== 200)) {
      expect(refused.status).toBe(400);
      expect(refused.body.issues[0].message).toContain('reserved');
    }
    const uploads = await Promise.all(given.map((r, i) => upload(via(i), r.body, 900 * KiB)));
    expect(uploads.map((u) => u.status)).toEqual([201]);
    expect(await storedBytes()).toBe(900 * KiB);
    // The reservation ended with the upload; the rest of the quota (124 KiB) is still there.
    expect((await presign(t, 124 * KiB)).status).toBe(200);
    expect((await presign(t, 1)).status).toBe(400);
    t.now = new Date(t.now.getTime() + 16 * 60 * 1000);
  });

  it('completions are checked one at a time: with the quota lowered, one of two parallel uploads is refused', async () => {
    const other = await createTenant(t);
    const ask = (ctx: TestContext) =>
      api(ctx, 'POST', '/media/presigned-url', {
        token: other.collector.token,
        body: { fileName: 'photo.png', entityId: 'e', fieldName: 'f', fileSize: 400 * KiB },
      });
    const [a, b] = await Promise.all([ask(via(0)), ask(via(1))]);
    expect([a!.status, b!.status]).toEqual([200, 200]);
    // The operator lowers the quota while both URLs are out: 400 + 400 KiB no longer fit.
    const quota = t.config.mediaQuotaBytes;
    t.config.mediaQuotaBytes = 600 * KiB;
    try {
      const done = await Promise.all([
        upload(via(0), a!.body, 400 * KiB),
        upload(via(1), b!.body, 400 * KiB),
      ]);
      expect(done.map((d) => d.status).sort()).toEqual([201, 400]);
      expect(done.find((d) => d.status === 400)!.body).toContain('quota');
    } finally {
      t.config.mediaQuotaBytes = quota;
    }
  });
});
