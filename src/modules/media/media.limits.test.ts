import { readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/helpers/app.ts';
import { createTenant, type Tenant } from '../../../test/helpers/factories.ts';
import { multipart, postForm, useMediaApp } from '../../../test/helpers/media-world.ts';

const t = useMediaApp({ mediaQuotaBytes: 100 });
let tenant: Tenant;
let port = 0;

beforeAll(async () => {
  tenant = await createTenant(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});

const presign = (fileSize: number) =>
  api(t, 'POST', '/media/presigned-url', {
    token: tenant.collector.token,
    body: { fileName: 'photo.png', entityId: 'e', fieldName: 'f', fileSize },
  });
const statusOf = async (id: string) =>
  (await api(t, 'GET', `/media/${id}`, { token: tenant.viewer.token })).body.status;

describe('the storage quota', () => {
  it('refuses an upload URL when uploaded bytes plus fileSize would exceed it', async () => {
    const first = await presign(90);
    const uploaded = await postForm(
      t.app,
      first.body.url,
      multipart(Object.entries(first.body.fields), { data: Buffer.alloc(90, 1) }),
    );
    expect(uploaded.status).toBe(201);
    const over = await presign(11);
    expect(over.status).toBe(400);
    expect(over.body.issues[0]).toMatchObject({
      path: 'fileSize',
      message: expect.stringContaining('quota'),
    });
    expect((await presign(10)).status).toBe(200);
    // Pending uploads do not count: only stored bytes do.
    expect((await presign(10)).status).toBe(200);
  });
});

describe('a client that goes away mid-upload', () => {
  it('leaves no file and a pending record, and the upload can be made again', async () => {
    const { body } = await presign(10);
    const form = multipart(Object.entries(body.fields), { data: Buffer.alloc(10, 7) });
    const half = form.body.subarray(0, form.body.length - 45);
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST ${new URL(body.url).pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${form.contentType}\r\n` +
        `Content-Length: ${form.body.length}\r\n\r\n`,
    );
    socket.write(half);
    await sleep(200);
    socket.destroy();
    await sleep(300);
    const root = join(t.config.dataDir, 'media');
    expect(await readdir(join(root, '.incoming'))).toEqual([]);
    expect(await readdir(join(root, 'org', tenant.organizationId))).not.toContain(body.mediaId);
    expect(await statusOf(body.mediaId)).toBe('pending');
    const again = await postForm(t.app, body.url, form);
    expect(again.status).toBe(201);
    expect(await statusOf(body.mediaId)).toBe('uploaded');
  });
});
