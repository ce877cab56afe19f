/**
 * Placeholders used by the request examples of the OpenAPI document (/docs, /openapi.json).
 *
 * An example that names a record uses one of these ids (or the invitation token): they name
 * no real record, so in /docs replace them with ids of your own organization.
 * `test/openapi-examples.test.ts` seeds an organization, replaces each placeholder by the
 * matching seeded record and sends every example, so an example that the service would
 * refuse fails the tests. A new placeholder needs a seeded record in that test.
 */
export const EXAMPLE_IDS = {
  organization: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e01',
  site: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e02',
  form: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e03',
  activityDefinition: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e04',
  dataset: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e05',
  datasetItem: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e06',
  member: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e07',
  /** A stored value of a submission (its `formElementSubmissionId`). */
  value: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e08',
  activity: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e09',
  /** Catalog units. */
  unitKwh: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e10',
  unitMwh: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e11',
  unitKm: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e12',
  sourceAdapter: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e15',
  indicator: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e13',
  target: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e14',
  /** A public dashboard protected by EXAMPLE_DASHBOARD_PASSWORD, with one widget. */
  dashboard: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e16',
  widget: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e17',
  /** A webhook endpoint. */
  webhook: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e18',
} as const;

/** The `adapterVersion` of the source adapter definition `EXAMPLE_IDS.sourceAdapter`. */
export const EXAMPLE_ADAPTER_VERSION = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

/** The token of an invitation e-mail (the `token` of its link). */
export const EXAMPLE_INVITATION_TOKEN = 'sdcs_inv_PASTE-THE-TOKEN-OF-THE-INVITATION-LINK';

/** The one-time code an OIDC sign-in hands the app (the `sso` of `/app/sign-in#sso=<code>`). */
export const EXAMPLE_SSO_CODE = 'sdcs_sso_PASTE-THE-CODE-OF-THE-SIGN-IN-ADDRESS';

/** The account of the login example. */
export const EXAMPLE_LOGIN = { email: 'ada@example.com', password: 'correct horse battery staple' } as const;

/** The password of the seeded public dashboard (`EXAMPLE_IDS.dashboard`). */
export const EXAMPLE_DASHBOARD_PASSWORD = 'correct horse battery staple';
