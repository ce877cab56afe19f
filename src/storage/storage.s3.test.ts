import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getSigningKey } from '@smithy/signature-v4';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../test/helpers/app.ts';
import { createTenant, type Tenant } from '../../test/helpers/factories.ts';
import { useMediaApp } from '../../test/helpers/media-world.ts';
import { REFUSALS } from '../../test/helpers/upload-refusals.ts';
import type { S3Config } from '../config.ts';
import { presignPostPolicy, S3Error, verifyPost } from './post-policy.ts';
import { signingKey, signPolicy } from './sigv4.ts';

const BUCKET = 'evidence';

const bytes = (data: string | ArrayBuffer | ArrayBufferView) =>
  typeof data === 'string'
    ? Buffer.from(data)
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/** The hash constructor shape the AWS SDK passes around (what @smithy/hash-node provides). */
class NodeSha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
let server: S3rver;
let directory: string;
const s3: S3Config = {
  bucket: BUCKET,
  endpoint: 'http://127.0.0.1:0',
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: CREDENTIALS,
};

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'sdcs-s3rver-'));
  server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const { port } = (await server.run()) as { port: number };
  s3.endpoint = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

// The app picks the S3 driver from its configuration (S3_BUCKET set), as in production.
const t = useMediaApp({ s3 });
let tenant: Tenant;
const PDF = Buffer.from('%PDF-1.4\nthrough s3\n%%EOF\n');

beforeAll(async () => {
  tenant = await createTenant(t);
});

const presign = (body: Record<string, unknown> = {}) =>
  api(t, 'POST', '/media/presigned-url', {
    token: tenant.collector.token,
    body: { fileName: 'meter.pdf', entityId: 'e', fieldName: 'doc', fileSize: PDF.length, ...body },
  });

/** POSTs the fields and the file to the store, as a browser would. */
async function upload(url: string, fields: Record<string, string>, file: Buffer, type = 'application/pdf') {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([new Uint8Array(file)], { type }), 'meter.pdf');
  return fetch(url, { method: 'POST', body: form });
}

describe('the S3 driver against an S3-compatible server (s3rver on loopback)', () => {
  it('takes the same upload: presign, POST to the bucket, confirmed uploaded with its checksum, downloaded', async () => {
    const res = await presign();
    expect(res.status).toBe(200);
    const { url, fields, mediaId, mediaKey } = res.body;
    expect(url).toBe(`${s3.endpoint}/${BUCKET}`);
    expect(fields).toMatchObject({
      key: mediaKey,
      'Content-Type': 'application/pdf',
      success_action_status: '201',
    });
    const posted = await upload(url, fields, PDF);
    expect(posted.status).toBe(201);

    const got = await api(t, 'GET', `/media/${mediaId}`, { token: tenant.collector.token });
    expect(got.body).toMatchObject({
      status: 'uploaded',
      size: PDF.length,
      sha256: createHash('sha256').update(PDF).digest('hex'),
    });
    const download = await fetch(got.body.downloadUrl);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);
    expect(new URL(got.body.downloadUrl).searchParams.get('X-Amz-Expires')).toBe('300');

    const removed = await api(t, 'DELETE', `/media/${mediaId}`, { token: tenant.collector.token });
    expect(removed.status).toBe(200);
    expect((await fetch(got.body.downloadUrl)).status).toBe(404);
  });

  it('an object that breaks the policy (s3rver does not check it) is removed and stays pending', async () => {
    const big = await presign();
    expect((await upload(big.body.url, big.body.fields, Buffer.concat([PDF, PDF]))).ok).toBe(true);
    expect(
      (await api(t, 'GET', `/media/${big.body.mediaId}`, { token: tenant.owner.token })).body.status,
    ).toBe('pending');
    const typed = await presign();
    const fields = { ...typed.body.fields, 'Content-Type': 'text/html' };
    expect((await upload(typed.body.url, fields, PDF, 'text/html')).ok).toBe(true);
    expect(
      (await api(t, 'GET', `/media/${typed.body.mediaId}`, { token: tenant.owner.token })).body.status,
    ).toBe('pending');
  });

  describe('its policy, checked by the verifier the local endpoint uses (as S3 checks it)', () => {
    const identity = { accessKeyId: 'S3RVER', secretKey: 'S3RVER', region: 'us-east-1' };
    const lower = (fields: [string, string][]) => new Map(fields.map(([k, v]) => [k.toLowerCase(), v]));

    it('is valid as issued, with the conditions of the local driver', async () => {
      const { body } = await presign();
      const verified = verifyPost(lower(Object.entries(body.fields)), identity, BUCKET, new Date());
      expect(verified).toMatchObject({ key: body.mediaKey, contentType: 'application/pdf', minSize: 1 });
      expect(verified.maxSize).toBe(PDF.length);
    });

    // The size refusals need the bytes: the local endpoint tests them while streaming.
    const fieldRefusals = REFUSALS.filter((r) => !/larger|empty/.test(r.name) && !/twice/.test(r.name));
    it.each(fieldRefusals)('refuses $name', async (refusal) => {
      const { body } = await presign();
      const spoiled = refusal.spoil(Object.entries(body.fields), PDF);
      const now = new Date(Date.now() + (refusal.advanceMs ?? 0));
      let error: unknown;
      try {
        verifyPost(lower(spoiled.fields), identity, BUCKET, now);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(S3Error);
      expect(error).toMatchObject({ status: refusal.status, code: refusal.code });
    });
  });
});

describe('SigV4 as AWS specifies it', () => {
  it('derives the signing key of the AWS documentation example', () => {
    // docs.aws.amazon.com: "Examples of how to derive a signing key for Signature Version 4".
    const key = signingKey('wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', '20120215', 'us-east-1', 'iam');
    expect(key.toString('hex')).toBe('f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d');
  });

  it('signs the local policy as the AWS SDK’s own SigV4 implementation does', async () => {
    const identity = { accessKeyId: 'SDCSLOCAL', secretKey: 'a-derived-secret', region: 'local' };
    const now = new Date('2026-11-23T17:20:00.000Z');
    const fields = presignPostPolicy(identity, {
      bucket: 'sdcs-local',
      key: 'org/o/m/a.pdf',
      contentType: 'application/pdf',
      maxSize: 10,
      now,
      expiresInSeconds: 900,
    });
    expect(fields['X-Amz-Date']).toBe('20261123T172000Z');
    expect(fields['X-Amz-Credential']).toBe('SDCSLOCAL/20261123/local/s3/aws4_request');
    const awsKey = await getSigningKey(
      NodeSha256,
      { accessKeyId: identity.accessKeyId, secretAccessKey: identity.secretKey },
      '20261123',
      'local',
      's3',
    );
    const expected = createHmac('sha256', Buffer.from(awsKey)).update(fields.Policy!).digest('hex');
    expect(fields['X-Amz-Signature']).toBe(expected);
    expect(signPolicy(identity.secretKey, '20261123', 'local', fields.Policy!)).toBe(expected);
    expect(JSON.parse(Buffer.from(fields.Policy!, 'base64').toString())).toEqual({
      expiration: '2026-11-23T17:35:00Z',
      conditions: [
        ['content-length-range', 1, 10],
        { 'Content-Type': 'application/pdf' },
        { success_action_status: '201' },
        { bucket: 'sdcs-local' },
        { 'X-Amz-Algorithm': 'AWS4-HMAC-SHA256' },
        { 'X-Amz-Credential': 'SDCSLOCAL/20261123/local/s3/aws4_request' },
        { 'X-Amz-Date': '20261123T172000Z' },
        { key: 'org/o/m/a.pdf' },
      ],
    });
  });
});
