import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors } from '../../http/schemas.ts';
import type { Storage } from '../../storage/storage.ts';
import type { PackSigner } from './audit-pack.signing.ts';
import { sendAuditPack } from './audit-pack.ts';
import { AuditPackQuery, exportHeaders } from './exports.schemas.ts';
import type { ExportDeps } from './exports.stream.ts';

const TAGS = ['Exports'];

/** The public key that verifies audit packs (GET /exports/signing-key). */
export const SigningKey = Type.Object(
  {
    algorithm: Type.Literal('Ed25519'),
    keyId: Type.String({
      pattern: '^[0-9a-f]{16}$',
      description:
        'First 16 hex digits of the SHA-256 of the public key in DER (SubjectPublicKeyInfo); `manifest.json` names the key that signed it by this id',
    }),
    publicKey: Type.String({
      maxLength: 200,
      description:
        'The public key in PEM (SubjectPublicKeyInfo), as `openssl pkeyutl -verify -pubin` reads it',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        algorithm: 'Ed25519',
        keyId: 'ea4ee48a8aaf0193',
        publicKey:
          '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEACzy+RlfLbWVCVrDHTLmG5iApYqRXAXQmN/xCt84GyM0=\n-----END PUBLIC KEY-----\n',
      },
    ],
  },
);

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** GET /exports/audit-pack and the public key that verifies its signature. */
export function auditPackRoutes(
  app: App,
  {
    deps,
    storage,
    signer,
    tooMany,
  }: { deps: ExportDeps; storage: Storage; signer: PackSigner; tooMany: object },
) {
  app.get(
    '/exports/audit-pack',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'exports.auditPack',
        tags: TAGS,
        summary: 'Download everything behind a year’s figures as one signed zip (managers and owners)',
        description:
          'A zip streamed as it is made (see docs/exports.md, "The audit pack"): `values.csv`, `activities.csv` and `history.csv` (the columns of the three exports; history snapshots name units by symbol), `forms.csv` (forms and elements with types, units, aggregation and value rules), `activity-definitions.csv` with each definition’s calcCode as `methodology/<key>.js` (older code an exported activity was calculated with as `methodology/<key>.<digest>.js`; each file’s SHA-256 is the activities’ `calcCodeSha256`), `units.csv` (symbols, dimensions, factors), `datasets.csv` (the coefficients with their dataset’s source and edition), `indicators.csv` (each indicator’s formula in names and units, and its value over the sites exported), `locks.csv`, the evidence files under `evidence/<mediaId>/<file name>`, `README.txt` (each file explained for an auditor), `SHA256SUMS`, `manifest.json` (organization, who made it, when, software version, filters, effective site scope, and the row count, size and SHA-256 of every file) and `manifest.sig` (the Ed25519 signature of `manifest.json`, by the key of `GET /exports/signing-key`; check it with `sdcs verify-pack`). Managers and owners only, because it holds the datasets (which viewers cannot read); only the sites you can read are exported. The same data at the same time gives the same bytes.',
        querystring: AuditPackQuery,
        response: {
          200: {
            description: 'The zip',
            headers: exportHeaders('audit-pack-<year>.zip'),
            content: { 'application/zip': { schema: Type.String({ format: 'binary' }) } },
          },
          ...errors(400, 401, 403),
          429: tooMany,
        },
      },
    },
    (request, reply) => sendAuditPack(request, reply, deps, storage, signer, request.query),
  );

  app.get(
    '/exports/signing-key',
    {
      config: { public: true },
      schema: {
        operationId: 'exports.signingKey',
        tags: TAGS,
        summary: 'The public key that verifies audit packs (no credential needed)',
        description:
          'The Ed25519 public key whose signature `manifest.sig` carries in every audit pack of this service, with its key id. Fetch it from the service (not from a pack: a key shipped with the data proves nothing) and give it to `sdcs verify-pack --key` or to `openssl pkeyutl -verify -pubin -rawin`. It changes only when the service’s signing key does (SDCS_SIGNING_KEY, or SDCS_SECRET from which it is derived by default); keep old keys to check old packs.',
        security: [],
        response: {
          200: SigningKey,
          ...errors(),
        },
      },
    },
    async () => ({ algorithm: 'Ed25519' as const, keyId: signer.keyId, publicKey: signer.publicKeyPem }),
  );
}
