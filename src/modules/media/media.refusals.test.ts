import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/helpers/app.ts';
import { createTenant, type Tenant } from '../../../test/helpers/factories.ts';
import { multipart, postForm, useMediaApp } from '../../../test/helpers/media-world.ts';
import { REFUSALS } from '../../../test/helpers/upload-refusals.ts';

const t = useMediaApp();
let tenant: Tenant;
const PDF = Buffer.from('%PDF-1.4\nrefusals\n%%EOF\n');

beforeAll(async () => {
  tenant = await createTenant(t);
});

const presign = (body: Record<string, unknown> = {}) =>
  api(t, 'POST', '/media/presigned-url', {
    token: tenant.collector.token,
    body: { fileName: 'meter.pdf', entityId: 'e', fieldName: 'doc', fileSize: PDF.length, ...body },
  });

const statusOf = async (id: string) =>
  (await api(t, 'GET', `/media/${id}`, { token: tenant.collector.token })).body.status;

async function leftovers(): Promise<string[]> {
  const root = join(t.config.dataDir, 'media');
  const incoming = await readdir(join(root, '.incoming')).catch(() => []);
  const org = await readdir(join(root, 'org', tenant.organizationId)).catch(() => []);
  return [...incoming, ...org];
}

describe('POST /media/presigned-url refuses', () => {
  it.each([
    ['a disallowed extension', { fileName: 'setup.exe' }, 'fileName', 'media.typeNotAllowed'],
    ['no extension', { fileName: 'README' }, 'fileName', 'media.typeNotAllowed'],
    [
      'a content type other than the extension’s',
      { contentType: 'image/png' },
      'contentType',
      'media.typeMismatch',
    ],
    ['a path in the file name', { fileName: '../../etc/passwd.pdf' }, 'fileName', 'media.nameInvalid'],
    ['a Windows path in the file name', { fileName: 'C:\\temp\\meter.pdf' }, 'fileName', 'media.nameInvalid'],
    ['control characters', { fileName: 'meter\n.pdf' }, 'fileName', 'media.nameInvalid'],
    ['an over-long name', { fileName: `${'a'.repeat(300)}.pdf` }, 'fileName', 'media.nameInvalid'],
    ['a hidden file name', { fileName: '.pdf' }, 'fileName', 'media.nameInvalid'],
    ['more than the maximum size', { fileSize: 25 * 1024 * 1024 + 1 }, 'fileSize', 'media.tooLarge'],
    ['an empty file', { fileSize: 0 }, 'fileSize', undefined],
    ['an unknown entity type', { entityType: 'Invoice' }, 'entityType', undefined],
  ])('%s', async (_name, body, path, code) => {
    const res = await presign(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(JSON.stringify(res.body.issues)).toContain(path);
    // The file's own refusals carry a code the app says in the person's language.
    if (code) expect(res.body.issues).toMatchObject([{ path, code }]);
  });

  it('names the sizes of a file too large in raw bytes, and the types of a type not accepted', async () => {
    const large = await presign({ fileSize: 25 * 1024 * 1024 + 1 });
    expect(large.body.issues[0].params).toEqual({ maxBytes: 25 * 1024 * 1024 });
    const typed = await presign({ fileName: 'README' });
    expect(typed.body.issues[0].params).toMatchObject({
      extension: '',
      allowed: expect.stringContaining('.pdf'),
    });
  });

  it('a viewer (COLLECTOR and up may upload)', async () => {
    const res = await api(t, 'POST', '/media/presigned-url', {
      token: tenant.viewer.token,
      body: { fileName: 'a.pdf', entityId: 'e', fieldName: 'f', fileSize: 1 },
    });
    expect(res.status).toBe(403);
  });

  it('derives the content type from the extension, case-insensitively', async () => {
    const res = await presign({ fileName: 'Photo.JPG', contentType: 'IMAGE/JPEG' });
    expect(res.status).toBe(200);
    expect(res.body.fields['Content-Type']).toBe('image/jpeg');
    expect(res.body.mediaKey).toMatch(/\/Photo\.jpg$/);
  });
});

describe('the upload endpoint refuses, as S3 does, and keeps nothing', () => {
  it.each(REFUSALS)('$name', async (refusal) => {
    const { body } = await presign();
    const spoiled = refusal.spoil(Object.entries(body.fields), PDF);
    const saved = t.now;
    if (refusal.advanceMs) t.now = new Date(saved.getTime() + refusal.advanceMs);
    const res = await postForm(t.app, body.url, multipart(spoiled.fields, { data: spoiled.file }));
    t.now = saved;
    expect(res.status).toBe(refusal.status);
    expect(res.headers['content-type']).toMatch(/application\/xml/);
    expect(res.body).toContain(`<Code>${refusal.code}</Code>`);
    expect(await statusOf(body.mediaId)).toBe('pending');
    expect(await leftovers()).toEqual([]);
    // The untouched upload still works afterwards (within its 15 minutes).
    const ok = await postForm(t.app, body.url, multipart(Object.entries(body.fields), { data: PDF }));
    expect(ok.status).toBe(201);
    expect(await statusOf(body.mediaId)).toBe('uploaded');
    await api(t, 'DELETE', `/media/${body.mediaId}`, { token: tenant.collector.token });
  });

  it('a body that is not multipart, and a form without a file', async () => {
    const { body } = await presign();
    const json = await t.app.inject({ method: 'POST', url: new URL(body.url).pathname, payload: { a: 1 } });
    expect(json.statusCode).toBe(400);
    expect(json.body).toContain('<Code>MalformedPOSTRequest</Code>');
    const noFile = await postForm(t.app, body.url, multipart(Object.entries(body.fields)));
    expect(noFile.status).toBe(400);
    expect(noFile.body).toContain('<Code>InvalidArgument</Code>');
  });
});
