import { createHash, createPrivateKey, createPublicKey, hkdfSync, type KeyObject, sign } from 'node:crypto';

/** The key that signs audit packs, and what verifiers need of it. */
export interface PackSigner {
  /** First 16 hex digits of the SHA-256 of the public key (SubjectPublicKeyInfo, DER). */
  keyId: string;
  /** The public key, PEM (SubjectPublicKeyInfo): what `openssl pkeyutl -verify -pubin` reads. */
  publicKeyPem: string;
  /** The Ed25519 signature (64 bytes) of `data`. */
  sign(data: Buffer): Buffer;
}

/** PKCS#8 DER of an Ed25519 private key is this prefix followed by the 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const PURPOSE = 'sdcs audit-pack signing key v1';

/** The key id of a public key: first 16 hex digits of the SHA-256 of its DER (SPKI). */
export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').slice(0, 16);
}

/**
 * The service's signing key: SDCS_SIGNING_KEY when given, else derived from the service secret
 * (HKDF-SHA256 with a purpose label, as the upload-signing key is): the secret is generated once
 * into the data directory, and processes sharing a database must share it already, so every
 * process signs with the same key without another file or table (decision 174).
 */
export function packSigner(config: { secret: string; signingKey: string | undefined }): PackSigner {
  const privateKey = config.signingKey
    ? createPrivateKey(config.signingKey)
    : createPrivateKey({
        key: Buffer.concat([
          ED25519_PKCS8_PREFIX,
          Buffer.from(hkdfSync('sha256', config.secret, Buffer.alloc(0), PURPOSE, 32)),
        ]),
        format: 'der',
        type: 'pkcs8',
      });
  const publicKey = createPublicKey(privateKey);
  return {
    keyId: keyIdOf(publicKey),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    sign: (data) => sign(null, data, privateKey),
  };
}
