import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/helpers/app.ts';
import { createTenant, type Tenant } from '../../../test/helpers/factories.ts';
import { getUrl, multipart, postForm, useMediaApp } from '../../../test/helpers/media-world.ts';

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

    const got = await api(t, 'GET', `/media/${mediaId}`, { token: tenant.viewer.token });
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
