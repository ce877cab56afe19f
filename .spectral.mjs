// Spectral's lint of the OpenAPI document in CI (.ci/run): the OWASP API Security Top 10 ruleset,
// imported from node_modules (nothing is fetched at run time). An error fails CI. Each exclusion
// below says why it does not apply; the schema-limit rules still run on requests, as warnings.
import owasp from '@stoplight/spectral-owasp-ruleset';
import { defined, schema, xor } from '@stoplight/spectral-functions';

/** Where clients send data: request bodies and parameters (answers are written by the service). */
const REQUEST = ['$.paths[*][*].requestBody..', '$.paths[*][*].parameters[*].schema..'];
const of = (type) =>
  REQUEST.flatMap((root) => [
    `${root}[?(@ && @.type == "${type}")]`,
    `${root}[?(@ && @.type && @.type.constructor.name === "Array" && @.type.includes("${type}"))]`,
  ]);

// The public POST routes are public by design: sign-up makes the credential (off unless
// SDCS_ALLOW_SIGNUP, and attempt-limited); login, describing and accepting an invitation, a
// dashboard's gate, the local upload target and the exchange of a single sign-on's one-time code
// take a secret of their own (a password, an invitation token, a signed upload policy, the
// one-time code) instead of a bearer credential.
const PUBLIC_WRITES = [
  '/api/v1/auth/signup',
  '/api/v1/auth/login',
  '/api/v1/invitations/describe',
  '/api/v1/invitations/accept',
  '/api/v1/media/upload',
  '/api/v1/public/dashboards/{id}/access',
  '/api/v1/auth/oidc/exchange',
].map((path) => {
  // A JSON pointer to the operation's security, with braces escaped as in a URI fragment.
  const pointer = path.replaceAll('~', '~0').replaceAll('/', '~1').replaceAll('{', '%7B').replaceAll('}', '%7D');
  return `**#/paths/${pointer}/post/security`;
});

export default {
  extends: [owasp],
  rules: {
    // Length, format and range limits of schemas are for what the service reads. In answers they
    // are noise: the service writes those values, and a limit there protects nothing.
    'owasp:api4:2023-string-limit': 'off',
    'owasp:api4:2023-string-restricted': 'off',
    'owasp:api4:2023-integer-limit': 'off',
    'owasp:api4:2023-integer-format': 'off',
    'owasp:api4:2023-array-limit': 'off',
    // On requests they stay visible as warnings, not gates: every body is bounded by the body limit
    // (1 MiB, 10 MiB for imports; 413 beyond) and checked field by field by the service, and JSON
    // numbers are checked against the ranges that matter where they matter.
    'sdcs:request-string-limit': {
      description: 'Request strings should have a maxLength, an enum or a const.',
      severity: 'warn',
      given: of('string'),
      then: { function: schema, functionOptions: { schema: { anyOf: [{ required: ['maxLength'] }, { required: ['enum'] }, { required: ['const'] }, { required: ['format'] }] } } },
    },
    'sdcs:request-integer-limit': {
      description: 'Request integers should have a minimum and a maximum.',
      severity: 'warn',
      given: of('integer'),
      then: [
        { function: xor, functionOptions: { properties: ['minimum', 'exclusiveMinimum'] } },
        { function: xor, functionOptions: { properties: ['maximum', 'exclusiveMaximum'] } },
      ],
    },
    'sdcs:request-array-limit': {
      description: 'Request arrays should have a maxItems.',
      severity: 'warn',
      given: of('array'),
      then: { field: 'maxItems', function: defined },
    },
    // The API sends no CORS headers: it is called by servers and by pages the service serves
    // itself (same origin). Declaring Access-Control-Allow-Origin would document what is not sent.
    'owasp:api8:2023-define-cors-origin': 'off',
  },
  overrides: [{ files: PUBLIC_WRITES, rules: { 'owasp:api2:2023-write-restricted': 'off' } }],
};
