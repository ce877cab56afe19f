import { createHmac } from 'node:crypto';

/** AWS Signature Version 4 pieces used by browser-based POST uploads (the S3 POST policy). */
export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** `20261123T172000Z`: the X-Amz-Date form of a time. */
export const amzDate = (date: Date) =>
  date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** `20261123/us-east-1/s3/aws4_request` */
export const credentialScope = (shortDate: string, region: string, service = 's3') =>
  `${shortDate}/${region}/${service}/aws4_request`;

/** The SigV4 signing key: HMAC chain over date, region, service and `aws4_request`. */
export function signingKey(secretKey: string, shortDate: string, region: string, service = 's3'): Buffer {
  const dateKey = hmac(`AWS4${secretKey}`, shortDate);
  return hmac(hmac(hmac(dateKey, region), service), 'aws4_request');
}

/** The X-Amz-Signature of a POST policy: hex HMAC of the base64 policy with the signing key. */
export function signPolicy(
  secretKey: string,
  shortDate: string,
  region: string,
  policyBase64: string,
): string {
  return hmac(signingKey(secretKey, shortDate, region), policyBase64).toString('hex');
}
