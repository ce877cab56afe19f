import { spawn } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
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
  (await api(t, 'GET', `/media/${id}`, { token: tenant.collector.token })).body.status;

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
      code: 'media.quotaExceeded',
      params: { quotaBytes: 100, usedBytes: 90 },
    });
    expect((await presign(10)).status).toBe(200);
    // A live upload URL reserves its declared size: 90 stored + 10 reserved + 10 > 100 ...
    expect((await presign(10)).status).toBe(400);
    // ... until that URL expires (15 minutes), and its reservation with it.
    t.now = new Date(t.now.getTime() + 16 * 60 * 1000);
    expect((await presign(10)).status).toBe(200);
    t.now = new Date(t.now.getTime() + 16 * 60 * 1000);
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

describe('a file far larger than declared, over HTTP', () => {
  it('is answered 400 EntityTooLarge at once, and nothing is kept', async () => {
    // A tenant of its own: the quota of the first one is used up.
    const other = await createTenant(t);
    const { body } = await api(t, 'POST', '/media/presigned-url', {
      token: other.collector.token,
      body: { fileName: 'photo.png', entityId: 'e', fieldName: 'f', fileSize: 10 },
    });
    const path = join(t.config.dataDir, 'big.png');
    await writeFile(path, Buffer.alloc(8 * 1024 * 1024, 1));
    const args = Object.entries(body.fields as Record<string, string>).flatMap(([k, v]) => [
      '--form-string',
      `${k}=${v}`,
    ]);
    const url = `http://127.0.0.1:${port}${new URL(body.url).pathname}`;
    const child = spawn('curl', [
      '-sS',
      '-o',
      '-',
      '-w',
      '\n%{http_code}',
      ...args,
      '-F',
      `file=@${path}`,
      url,
    ]);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await new Promise((resolve) => child.on('close', resolve));
    expect(out).toContain('<Code>EntityTooLarge</Code>');
    expect(out.trim().endsWith('400')).toBe(true);
    expect(await readdir(join(t.config.dataDir, 'media', '.incoming'))).toEqual([]);
    const after = await api(t, 'GET', `/media/${body.mediaId}`, { token: other.collector.token });
    expect(after.body.status).toBe('pending');
  });
});
