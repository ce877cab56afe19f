import { timingSafeEqual } from 'node:crypto';
import { amzDate, credentialScope, SIGV4_ALGORITHM, signPolicy } from './sigv4.ts';

/** An error answered as S3 answers it: an HTTP status and an S3 error code in XML. */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'S3Error';
  }
}

export interface SigningIdentity {
  accessKeyId: string;
  secretKey: string;
  region: string;
}

export interface PostPolicyRequest {
  bucket: string;
  key: string;
  contentType: string;
  /** The largest accepted size (content-length-range is [1, maxSize]). */
  maxSize: number;
  now: Date;
  expiresInSeconds: number;
}

/** The policy conditions both drivers sign (the S3 driver passes the same to the AWS SDK). */
export function uploadConditions(contentType: string, maxSize: number) {
  return {
    fields: { 'Content-Type': contentType, success_action_status: '201' },
    conditions: [['content-length-range', 1, maxSize]] as [string, number, number][],
  };
}

const iso8601 = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Signs a POST policy exactly as `@aws-sdk/s3-presigned-post` does: the same fields, the same
 * conditions (every field, bucket and exact key), base64 JSON, SigV4 signature.
 */
export function presignPostPolicy(
  identity: SigningIdentity,
  request: PostPolicyRequest,
): Record<string, string> {
  const date = amzDate(request.now);
  const shortDate = date.slice(0, 8);
  const { fields: extra, conditions: base } = uploadConditions(request.contentType, request.maxSize);
  const fields: Record<string, string> = {
    ...extra,
    bucket: request.bucket,
    'X-Amz-Algorithm': SIGV4_ALGORITHM,
    'X-Amz-Credential': `${identity.accessKeyId}/${credentialScope(shortDate, identity.region)}`,
    'X-Amz-Date': date,
  };
  const conditions: unknown[] = [
    ...base,
    ...Object.entries(fields).map(([k, v]) => ({ [k]: v })),
    { key: request.key },
  ];
  const expiration = new Date(request.now.getTime() + request.expiresInSeconds * 1000);
  const policy = Buffer.from(
    JSON.stringify({ expiration: iso8601(expiration), conditions }),
    'utf8',
  ).toString('base64');
  return {
    ...fields,
    key: request.key,
    Policy: policy,
    'X-Amz-Signature': signPolicy(identity.secretKey, shortDate, identity.region, policy),
  };
}

/** What a verified POST allows: the key, the content type and the byte range of the file. */
export interface VerifiedPost {
  key: string;
  contentType: string | undefined;
  minSize: number;
  maxSize: number;
  successStatus: 200 | 201 | 204;
}

/** Form fields that need no condition (as in S3): the signature, the policy itself, the file. */
const UNCONDITIONED = new Set(['policy', 'x-amz-signature', 'file']);
const REQUIRED = ['key', 'policy', 'x-amz-algorithm', 'x-amz-credential', 'x-amz-date', 'x-amz-signature'];

const denied = (message: string) =>
  new S3Error(403, 'AccessDenied', `Invalid according to Policy: ${message}`);
const invalid = (message: string) => new S3Error(400, 'InvalidArgument', message);

/**
 * Checks a POST upload's form fields (names lowercased, each once) as S3 and MinIO do: the
 * SigV4 signature of the policy, its expiry, each of its conditions, and that every field
 * other than the signature, the policy and the file is named by a condition.
 * Throws S3Error: 403 for signature, policy or expiry, 400 for a malformed request.
 */
export function verifyPost(
  fields: ReadonlyMap<string, string>,
  identity: SigningIdentity,
  bucket: string,
  now: Date,
): VerifiedPost {
  for (const name of REQUIRED) {
    if (!fields.has(name)) throw invalid(`Bucket POST must contain a field named '${name}'`);
  }
  const get = (name: string) => fields.get(name) ?? '';
  if (get('x-amz-algorithm') !== SIGV4_ALGORITHM) {
    throw invalid(`X-Amz-Algorithm only supports "${SIGV4_ALGORITHM}"`);
  }
  const date = get('x-amz-date');
  const [accessKeyId, shortDate, region, service, terminator, ...rest] = get('x-amz-credential').split('/');
  if (rest.length > 0 || service !== 's3' || terminator !== 'aws4_request' || !/^\d{8}T\d{6}Z$/.test(date)) {
    throw invalid('X-Amz-Credential or X-Amz-Date is malformed');
  }
  if (accessKeyId !== identity.accessKeyId) {
    throw new S3Error(
      403,
      'InvalidAccessKeyId',
      'The access key Id you provided does not exist in our records.',
    );
  }
  if (region !== identity.region || shortDate !== date.slice(0, 8)) {
    throw new S3Error(403, 'SignatureDoesNotMatch', 'The credential scope does not match this service');
  }
  const policy = get('policy');
  const expected = Buffer.from(signPolicy(identity.secretKey, shortDate, region, policy), 'utf8');
  const given = Buffer.from(get('x-amz-signature').toLowerCase(), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new S3Error(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided.',
    );
  }

  const document = decodePolicy(policy);
  const expiration = Date.parse(document.expiration);
  if (!Number.isFinite(expiration))
    throw new S3Error(400, 'InvalidPolicyDocument', 'Invalid Policy: expiration');
  if (now.getTime() >= expiration) throw denied('Policy expired.');

  const covered = new Set<string>();
  let range: [number, number] | undefined;
  for (const condition of document.conditions) {
    const parsed = parseCondition(condition);
    if (parsed.kind === 'range') {
      range = [parsed.min, parsed.max];
      continue;
    }
    covered.add(parsed.field);
    const actual = parsed.field === 'bucket' ? (fields.get('bucket') ?? bucket) : fields.get(parsed.field);
    if (parsed.field === 'bucket' && actual !== bucket)
      throw denied(`Policy Condition failed: ${JSON.stringify(condition)}`);
    const holds =
      actual !== undefined &&
      (parsed.op === 'eq' ? actual === parsed.value : parsed.value === '' || actual.startsWith(parsed.value));
    if (!holds) throw denied(`Policy Condition failed: ${JSON.stringify(condition)}`);
  }
  const extra = [...fields.keys()].filter(
    (f) => !UNCONDITIONED.has(f) && !f.startsWith('x-ignore-') && !covered.has(f),
  );
  if (extra.length > 0) throw denied(`Extra input fields: ${extra.join(', ')}`);

  const status = Number(fields.get('success_action_status') ?? '204');
  return {
    key: get('key'),
    contentType: fields.get('content-type'),
    minSize: range?.[0] ?? 0,
    maxSize: range?.[1] ?? Number.POSITIVE_INFINITY,
    successStatus: status === 200 || status === 201 ? status : 204,
  };
}

function decodePolicy(policy: string): { expiration: string; conditions: unknown[] } {
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(policy, 'base64').toString('utf8'));
  } catch {
    throw new S3Error(400, 'InvalidPolicyDocument', 'Invalid Policy: Invalid JSON.');
  }
  const d = document as { expiration?: unknown; conditions?: unknown };
  if (typeof d?.expiration !== 'string' || !Array.isArray(d.conditions)) {
    throw new S3Error(400, 'InvalidPolicyDocument', 'Invalid Policy: expiration and conditions are required');
  }
  return { expiration: d.expiration, conditions: d.conditions };
}

type Condition =
  | { kind: 'match'; op: 'eq' | 'starts-with'; field: string; value: string }
  | { kind: 'range'; min: number; max: number };

function parseCondition(condition: unknown): Condition {
  const bad = () =>
    new S3Error(400, 'InvalidPolicyDocument', `Invalid Policy: condition ${JSON.stringify(condition)}`);
  if (Array.isArray(condition)) {
    const [op, a, b] = condition as unknown[];
    if (condition.length !== 3 || typeof op !== 'string') throw bad();
    if (op.toLowerCase() === 'content-length-range') {
      if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || (a as number) < 0) throw bad();
      return { kind: 'range', min: a as number, max: b as number };
    }
    const kind = op.toLowerCase();
    if (
      (kind !== 'eq' && kind !== 'starts-with') ||
      typeof a !== 'string' ||
      !a.startsWith('$') ||
      typeof b !== 'string'
    ) {
      throw bad();
    }
    return { kind: 'match', op: kind, field: a.slice(1).toLowerCase(), value: b };
  }
  if (condition && typeof condition === 'object') {
    const entries = Object.entries(condition);
    const [field, value] = entries[0] ?? [];
    if (entries.length !== 1 || typeof field !== 'string' || typeof value !== 'string') throw bad();
    return { kind: 'match', op: 'eq', field: field.toLowerCase(), value };
  }
  throw bad();
}

/** The XML body of an S3 error. */
export function s3ErrorXml(error: S3Error, requestId: string, resource?: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error>' +
    `<Code>${xml(error.code)}</Code><Message>${xml(error.message)}</Message>` +
    (resource ? `<Resource>${xml(resource)}</Resource>` : '') +
    `<RequestId>${xml(requestId)}</RequestId></Error>`
  );
}

export const xml = (text: string) =>
  text.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!,
  );
