import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/helpers/app.ts';
import { createTenant, type Tenant } from '../../../test/helpers/factories.ts';
import { createUploadedMedia } from '../../../test/helpers/media.ts';
import { getUrl, multipart, postForm, useMediaApp } from '../../../test/helpers/media-world.ts';
import { createSubmissionWorld } from '../../../test/helpers/submission-world.ts';
import { LocalStorage } from '../../storage/local.ts';
import { cleanupPendingMedia } from './media.cleanup.ts';

const t = useMediaApp();
let tenant: Tenant;
const PDF = Buffer.from('%PDF-1.4\n% evidence\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n');

beforeAll(async () => {
  tenant = await createTenant(t);
});

async function presign(body: Record<string, unknown>, token = tenant.collector.token) {
  return api(t, 'POST', '/media/presigned-url', {
    token,
    body: { fileName: 'invoice.pdf', entityId: 'e-1', fieldName: 'doc', fileSize: PDF.length, ...body },
  });
}

const fieldsOf = (fields: Record<string, string>) => Object.entries(fields);

describe('the upload flow on local storage', () => {
  it('presigns in the S3 shape, takes the POST, stores the exact bytes and serves them back', async () => {
    const res = await presign({ fileName: 'Rechnung März 2025.pdf', entityType: 'FormSubmission' });
    expect(res.status).toBe(200);
    const { url, fields, mediaId, mediaKey } = res.body;
    expect(mediaKey).toBe(`org/${tenant.organizationId}/${mediaId}/Rechnung_Ma_rz_2025.pdf`);
    expect(url).toBe(`${t.config.publicUrl}/api/v1/media/upload`);
    expect(Object.keys(fields).sort()).toEqual(
      [
        'Content-Type',
        'Policy',
        'X-Amz-Algorithm',
        'X-Amz-Credential',
        'X-Amz-Date',
        'X-Amz-Signature',
        'bucket',
        'key',
        'success_action_status',
      ].sort(),
    );
    const policy = JSON.parse(Buffer.from(fields.Policy, 'base64').toString());
    expect(Date.parse(policy.expiration) - t.now.getTime()).toBeGreaterThan(14 * 60_000);
    expect(Date.parse(policy.expiration) - t.now.getTime()).toBeLessThanOrEqual(15 * 60_000);
    expect(policy.conditions).toEqual(
      expect.arrayContaining([
        ['content-length-range', 1, PDF.length],
        { key: mediaKey },
        { 'Content-Type': 'application/pdf' },
        { bucket: 'sdcs-local' },
      ]),
    );

    const upload = await postForm(
      t.app,
      url,
      multipart(fieldsOf(fields), { data: PDF, contentType: 'application/pdf' }),
    );
    expect(upload.status).toBe(201);
    expect(upload.headers['content-type']).toMatch(/application\/xml/);
    expect(upload.body).toContain(`<Key>${mediaKey}</Key>`);

    // Not attached to a value yet: the file is its uploader's to read.
    const got = await api(t, 'GET', `/media/${mediaId}`, { token: tenant.collector.token });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id: mediaId,
      fileName: 'Rechnung März 2025.pdf',
      contentType: 'application/pdf',
      size: PDF.length,
      sha256: createHash('sha256').update(PDF).digest('hex'),
      status: 'uploaded',
      entityType: 'FormSubmission',
      entityId: 'e-1',
      fieldName: 'doc',
      uploadedBy: tenant.collector.userId,
    });
    const download = await getUrl(t.app, got.body.downloadUrl);
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.equals(PDF)).toBe(true);
    expect(download.headers['content-type']).toBe('application/pdf');
    expect(download.headers['x-content-type-options']).toBe('nosniff');
    expect(download.headers['content-disposition']).toBe(
      `attachment; filename="Rechnung M_rz 2025.pdf"; filename*=UTF-8''Rechnung%20M%C3%A4rz%202025.pdf`,
    );

    // A second upload to the same key is refused, and the stored bytes stay.
    const again = await postForm(t.app, url, multipart(fieldsOf(fields), { data: Buffer.from('other') }));
    expect(again.status).toBe(412);
    expect(again.body).toContain('<Code>PreconditionFailed</Code>');
    expect((await getUrl(t.app, got.body.downloadUrl)).rawPayload.equals(PDF)).toBe(true);

    // The download URL lives 5 minutes.
    const saved = t.now;
    t.now = new Date(saved.getTime() + 5 * 60_000 + 1000);
    expect((await getUrl(t.app, got.body.downloadUrl)).statusCode).toBe(403);
    t.now = saved;
  });

  it('answers 204 without success_action_status in the policy', async () => {
    const { body } = await presign({});
    // success_action_status is listed in the policy: leaving the field out fails its condition.
    const without = fieldsOf(body.fields).filter(([k]) => k !== 'success_action_status');
    const res = await postForm(t.app, body.url, multipart(without, { data: PDF }));
    expect(res.status).toBe(403);
    const ok = await postForm(t.app, body.url, multipart(fieldsOf(body.fields), { data: PDF }));
    expect(ok.status).toBe(201);
  });
});

describe('FILE values and deletion', () => {
  it('take only uploaded media of the same organization; a used file cannot be deleted', async () => {
    const world = await createSubmissionWorld(t);
    const own = world.tenant;
    const presigned = await api(t, 'POST', '/media/presigned-url', {
      token: own.collector.token,
      body: { fileName: 'bill.pdf', entityId: 'x', fieldName: 'doc', fileSize: PDF.length },
    });
    const { mediaId } = presigned.body;
    const otherTenants = await createUploadedMedia(t, tenant.organizationId);

    const refused = await world.submit({
      values: [
        { elementKey: 'note', periodUnit: 1, value: 'fine' },
        { elementKey: 'doc', periodUnit: 1, value: mediaId },
        { elementKey: 'doc', periodUnit: 2, value: otherTenants },
      ],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.issues).toEqual([
      {
        path: 'values.1.value',
        message: expect.stringContaining('not uploaded yet'),
        code: 'value.fileNotUploaded',
      },
      {
        path: 'values.2.value',
        message: expect.stringContaining('does not exist in this organization'),
        code: 'value.fileUnknown',
      },
    ]);

    const upload = await postForm(
      t.app,
      presigned.body.url,
      multipart(fieldsOf(presigned.body.fields), { data: PDF }),
    );
    expect(upload.status).toBe(201);
    const accepted = await world.submit({ values: [{ elementKey: 'doc', periodUnit: 1, value: mediaId }] });
    expect(accepted.status).toBe(200);
    expect(accepted.body.values[0].value).toBe(mediaId);

    // Another collector may not delete it; the uploader may not while a value uses it.
    const other = await api(t, 'DELETE', `/media/${mediaId}`, { token: tenant.collector.token });
    expect(other.status).toBe(404);
    // The owner's file attached nowhere is not there for members limited to some sites.
    const stranger = await createUploadedMedia(t, own.organizationId, own.owner.userId);
    expect((await api(t, 'DELETE', `/media/${stranger}`, { token: own.collector.token })).status).toBe(404);
    expect((await api(t, 'DELETE', `/media/${stranger}`, { token: own.owner.token })).status).toBe(200);

    const used = await api(t, 'DELETE', `/media/${mediaId}`, { token: own.collector.token });
    expect(used.status).toBe(400);
    expect(used.body.issues[0].message).toContain('element "doc"');
    expect(used.body.issues[0].message).not.toContain(accepted.body.id);

    const cleared = await world.submit({ values: [{ elementKey: 'doc', periodUnit: 1, value: null }] });
    expect(cleared.status).toBe(200);
    const removed = await api(t, 'DELETE', `/media/${mediaId}`, { token: own.collector.token });
    expect(removed.status).toBe(200);
    expect((await api(t, 'GET', `/media/${mediaId}`, { token: own.owner.token })).status).toBe(404);
    const root = join(t.config.dataDir, 'media', 'org', own.organizationId);
    expect(await readdir(root)).toEqual([]);
  });

  it('another tenant’s media is 404', async () => {
    const other = await createTenant(t);
    const id = await createUploadedMedia(t, other.organizationId);
    expect((await api(t, 'GET', `/media/${id}`, { token: tenant.owner.token })).status).toBe(404);
    expect((await api(t, 'GET', '/media/not-a-uuid', { token: tenant.owner.token })).status).toBe(404);
  });
});

describe('cleanup of abandoned uploads', () => {
  it('removes pending records and files older than a day, keeps the rest', async () => {
    const old = await presign({});
    const storage = new LocalStorage(
      join(t.config.dataDir, 'media'),
      t.config.secret,
      'http://unused',
      'http://unused',
    );
    const kept = await createUploadedMedia(t, tenant.organizationId);
    const now = new Date(Date.now() + 25 * 3600_000);
    const removed = await cleanupPendingMedia(t.database, storage, now);
    expect(removed).toBeGreaterThanOrEqual(1);
    expect((await api(t, 'GET', `/media/${old.body.mediaId}`, { token: tenant.owner.token })).status).toBe(
      404,
    );
    expect((await api(t, 'GET', `/media/${kept}`, { token: tenant.owner.token })).status).toBe(200);
    const fresh = await presign({});
    expect(await cleanupPendingMedia(t.database, storage, new Date())).toBe(0);
    expect((await api(t, 'GET', `/media/${fresh.body.mediaId}`, { token: tenant.owner.token })).status).toBe(
      200,
    );
  });
});
