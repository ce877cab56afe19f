/**
 * The refusals every POST-policy upload must give, whichever driver signed the policy: the
 * local endpoint answers them over HTTP and the S3 driver's policies are checked against the
 * same verifier. Each takes the returned fields (in order) and the file, and spoils one thing.
 */
export interface Refusal {
  name: string;
  spoil: (fields: [string, string][], file: Buffer) => { fields: [string, string][]; file: Buffer };
  /** Moves the clock before the upload (ms). */
  advanceMs?: number;
  status: number;
  code: string;
}

const set = (fields: [string, string][], name: string, value: string) =>
  fields.map(([k, v]): [string, string] => [k, k === name ? value : v]);

const flip = (hex: string) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);

export const REFUSALS: Refusal[] = [
  {
    name: 'an expired policy (16 minutes later)',
    spoil: (fields, file) => ({ fields, file }),
    advanceMs: 16 * 60_000,
    status: 403,
    code: 'AccessDenied',
  },
  {
    name: 'a tampered signature',
    spoil: (fields, file) => ({
      fields: set(fields, 'X-Amz-Signature', flip(fields.find(([k]) => k === 'X-Amz-Signature')![1])),
      file,
    }),
    status: 403,
    code: 'SignatureDoesNotMatch',
  },
  {
    name: 'a tampered key',
    spoil: (fields, file) => ({
      fields: set(fields, 'key', fields.find(([k]) => k === 'key')![1].replace(/[^/]+$/, 'other.pdf')),
      file,
    }),
    status: 403,
    code: 'AccessDenied',
  },
  {
    name: 'another content type',
    spoil: (fields, file) => ({ fields: set(fields, 'Content-Type', 'text/html'), file }),
    status: 403,
    code: 'AccessDenied',
  },
  {
    name: 'a policy rewritten to allow more (signature unchanged)',
    spoil: (fields, file) => {
      const policy = JSON.parse(Buffer.from(fields.find(([k]) => k === 'Policy')![1], 'base64').toString());
      policy.conditions = policy.conditions.map((c: unknown) =>
        Array.isArray(c) && c[0] === 'content-length-range' ? ['content-length-range', 1, 1e9] : c,
      );
      return { fields: set(fields, 'Policy', Buffer.from(JSON.stringify(policy)).toString('base64')), file };
    },
    status: 403,
    code: 'SignatureDoesNotMatch',
  },
  {
    name: 'a file larger than declared',
    spoil: (fields, file) => ({ fields, file: Buffer.concat([file, Buffer.from('x')]) }),
    status: 400,
    code: 'EntityTooLarge',
  },
  {
    name: 'an empty file',
    spoil: (fields) => ({ fields, file: Buffer.alloc(0) }),
    status: 400,
    code: 'EntityTooSmall',
  },
  {
    name: 'a field sent twice',
    spoil: (fields, file) => ({ fields: [...fields, ['key', fields.find(([k]) => k === 'key')![1]]], file }),
    status: 400,
    code: 'InvalidArgument',
  },
  {
    name: 'an unlisted x-amz-meta-* field',
    spoil: (fields, file) => ({ fields: [...fields, ['x-amz-meta-owner', 'mallory']], file }),
    status: 403,
    code: 'AccessDenied',
  },
  {
    name: 'a missing signature',
    spoil: (fields, file) => ({ fields: fields.filter(([k]) => k !== 'X-Amz-Signature'), file }),
    status: 400,
    code: 'InvalidArgument',
  },
];
