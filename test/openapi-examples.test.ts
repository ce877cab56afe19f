import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { API_PREFIX } from '../src/app.ts';
import type { Role } from '../src/db/schema/index.ts';
import {
  EXAMPLE_ADAPTER_VERSION,
  EXAMPLE_DASHBOARD_PASSWORD,
  EXAMPLE_IDS,
  EXAMPLE_INVITATION_TOKEN,
  EXAMPLE_LOGIN,
  EXAMPLE_SSO_CODE,
} from '../src/http/examples.ts';
import { sha256Hex } from '../src/lib/secrets.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { api, type TestContext, useTestApp } from './helpers/app.ts';
import {
  addMember,
  assignSites,
  createActivityDefinition,
  createDataset,
  createDatasetItem,
  createSite,
  createTenant,
  type Tenant,
} from './helpers/factories.ts';
import { invitationHelpers, invitationTestConfig, newEmail } from './helpers/invitations.ts';
import { dereferenced } from './helpers/openapi-check.ts';
import { memberOf } from './security/matrix.ts';

/**
 * Every request example of the OpenAPI document (/openapi.json, shown in /docs) is sent to
 * the service against a seeded organization and must succeed, so examples cannot rot.
 *
 * Convention: an example names records by the placeholder ids of `src/http/examples.ts`
 * (`EXAMPLE_IDS`, `EXAMPLE_INVITATION_TOKEN`, `EXAMPLE_LOGIN`); `seedWorld` below makes one
 * record per placeholder and the test replaces each placeholder, wherever it appears in the
 * body (also inside texts such as CSV), by the seeded record's id. Path parameters are
 * filled from `PATH_RECORDS`. Each example is sent in a world of its own, with a credential
 * of the operation's `x-min-role`, and must answer the operation's documented 2xx status.
 */

// Sign-up is off by default; its example needs it on.
const t = useTestApp({ ...invitationTestConfig(), allowSignup: true });

interface Operation {
  method: string;
  path: string;
  minRole: Role | undefined;
  successStatus: number;
  examples: { name: string; value: unknown; summary?: string; description?: string; minRole?: Role }[];
}

type OpenApiDoc = {
  paths: Record<string, Record<string, Record<string, any>>>;
};

/** The operations of the document that read a request body, with their examples. */
function bodyOperations(doc: OpenApiDoc): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const media = op['requestBody']?.content?.['application/json'];
      if (!op['requestBody']) continue;
      const examples: Operation['examples'] = [];
      if (media?.example !== undefined) examples.push({ name: 'example', value: media.example });
      type Example = { value?: unknown; summary?: string; description?: string; 'x-min-role'?: Role };
      for (const [name, ex] of Object.entries<Example>(media?.examples ?? {})) {
        examples.push({
          name,
          value: ex.value,
          ...(ex.summary ? { summary: ex.summary } : {}),
          ...(ex.description ? { description: ex.description } : {}),
          ...(ex['x-min-role'] ? { minRole: ex['x-min-role'] } : {}),
        });
      }
      const statuses = Object.keys(op['responses'] ?? {})
        .map(Number)
        .filter((s) => s >= 200 && s < 300)
        .sort();
      out.push({
        method: method.toUpperCase(),
        path,
        minRole: op['x-min-role'],
        successStatus: statuses[0] ?? 200,
        examples,
      });
    }
  }
  return out;
}

/** Which seeded record a path parameter names: by the parameter, else by the path segment before `{id}`. */
const PATH_RECORDS: Record<string, keyof typeof EXAMPLE_IDS> = {
  userId: 'member',
  activityId: 'activity',
  datasetId: 'dataset',
  sites: 'site',
  forms: 'form',
  datasets: 'dataset',
  'dataset-items': 'datasetItem',
  'activity-definitions': 'activityDefinition',
  values: 'value',
  'source-adapter-definitions': 'sourceAdapter',
  indicators: 'indicator',
  targets: 'target',
  dashboards: 'dashboard',
  widgetId: 'widget',
  webhooks: 'webhook',
};

function pathRecord(path: string, param: string): keyof typeof EXAMPLE_IDS | undefined {
  if (param !== 'id') return PATH_RECORDS[param];
  const segments = path.split('/');
  const at = segments.indexOf('{id}');
  return PATH_RECORDS[segments[at - 1] ?? ''];
}

interface World {
  tenant: Tenant;
  /** Placeholder -> seeded value. */
  replacements: Map<string, string>;
}

const exampleOf = (doc: OpenApiDoc, method: string, path: string) => {
  const op = bodyOperations(doc).find((o) => o.method === method && o.path === `${API_PREFIX}${path}`);
  const value = op?.examples[0]?.value;
  if (value === undefined) throw new Error(`the seeded world needs the example of ${method} ${path}`);
  return value as Record<string, any>;
};

function substitute(value: unknown, replacements: Map<string, string>): unknown {
  if (typeof value === 'string') {
    let out = value;
    for (const [from, to] of replacements) out = out.split(from).join(to);
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, replacements));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, replacements)]));
  }
  return value;
}

async function must(what: string, res: Promise<{ status: number; body: any }>) {
  const answer = await res;
  if (answer.status !== 200) {
    throw new Error(`seeding failed at ${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body;
}

/**
 * An organization with one record per placeholder of `EXAMPLE_IDS`. The form, the
 * submission and the marked period are made from the documented examples themselves.
 * A module whose examples name a new kind of record adds a placeholder to EXAMPLE_IDS and
 * seeds the record here.
 */
async function seedWorld(t: TestContext, doc: OpenApiDoc): Promise<World> {
  const tenant = await createTenant(t);
  const org = tenant.organizationId;
  const ids: Partial<Record<keyof typeof EXAMPLE_IDS, string>> = { organization: org };
  const units = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  const unit = (symbol: string) => units.find((u) => u.symbol === symbol)!.id;
  ids.unitKwh = unit('kWh');
  ids.unitMwh = unit('MWh');
  ids.unitKm = unit('km');

  ids.site = await createSite(t, org, { name: 'Main plant', code: 'PLANT-01', metadata: { erp: 'S-100' } });
  for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
    await assignSites(t, org, member.userId, [ids.site]);
  }
  const definition = exampleOf(doc, 'POST', '/activity-definitions');
  ids.activityDefinition = await createActivityDefinition(t, org, {
    key: 'travel',
    calcCode: definition['calcCode'],
    inputs: definition['inputs'],
  });
  const replacements = () =>
    new Map<string, string>(
      Object.entries(ids).map(([k, v]) => [EXAMPLE_IDS[k as keyof typeof EXAMPLE_IDS], v]),
    );

  const form = await must(
    'POST /forms (its example)',
    api(t, 'POST', '/forms', {
      token: tenant.owner.token,
      body: substitute(exampleOf(doc, 'POST', '/forms'), replacements()),
    }),
  );
  ids.form = form.id as string;
  await must(
    'PUT /form-sites',
    api(t, 'PUT', '/form-sites', {
      token: tenant.owner.token,
      body: { formId: ids.form, siteIds: [ids.site], years: [2025] },
    }),
  );
  const submission = await must(
    'POST /form-submissions (its first example)',
    api(t, 'POST', '/form-submissions', {
      token: tenant.collector.token,
      body: substitute(exampleOf(doc, 'POST', '/form-submissions'), replacements()),
    }),
  );
  type Value = { formElementSubmissionId: string; activities?: { activityId: string }[] };
  const values = submission.values as Value[];
  ids.value = values[0]!.formElementSubmissionId;
  ids.activity = values.find((v) => v.activities?.length)?.activities?.[0]?.activityId;
  await must(
    'POST /activities/no-activity/mark (its example)',
    api(t, 'POST', '/activities/no-activity/mark', {
      token: tenant.collector.token,
      body: substitute(exampleOf(doc, 'POST', '/activities/no-activity/mark'), replacements()),
    }),
  );

  ids.dataset = await createDataset(t, org, { name: 'Factors' });
  ids.datasetItem = await createDatasetItem(t, org, ids.dataset, {
    key: 'grid_electricity',
    value: 0.05,
    year: 2025,
    unit: 'kgCO2e',
  });
  ids.member = (await addMember(t, org, 'VIEWER')).userId;
  const adapter = await must(
    'POST /source-adapter-definitions (its example)',
    api(t, 'POST', '/source-adapter-definitions', {
      token: tenant.owner.token,
      body: substitute(exampleOf(doc, 'POST', '/source-adapter-definitions'), replacements()),
    }),
  );
  ids.sourceAdapter = adapter.id as string;
  const indicator = await must(
    'POST /indicators',
    api(t, 'POST', '/indicators', {
      token: tenant.owner.token,
      body: { name: 'Grid electricity', expressionParts: [{ type: 'number', value: '1' }] },
    }),
  );
  ids.indicator = indicator.id as string;
  ids.target = (
    await must(
      'POST /targets',
      api(t, 'POST', '/targets', {
        token: tenant.owner.token,
        body: {
          indicatorId: ids.indicator,
          title: 'Halve it',
          targetEntries: [{ year: 2030, targetValue: 1 }],
        },
      }),
    )
  ).id as string;

  const dashboard = await must(
    'POST /dashboards',
    api(t, 'POST', '/dashboards', {
      token: tenant.owner.token,
      // Filtered to the manager's site: a site-limited manager may change a public dashboard's
      // widgets only then (the examples are sent as the route's lowest role).
      body: {
        name: 'Energy',
        isPublic: true,
        password: EXAMPLE_DASHBOARD_PASSWORD,
        globalFilter: { siteIds: [ids.site] },
      },
    }),
  );
  ids.dashboard = dashboard.id as string;
  ids.widget = (
    await must(
      'POST /dashboards/{id}/widgets',
      api(t, 'POST', `/dashboards/${ids.dashboard}/widgets`, {
        token: tenant.owner.token,
        body: { type: 'VALUE', title: 'Total', indicatorIds: [ids.indicator] },
      }),
    )
  ).id as string;

  ids.webhook = (
    await must(
      'POST /webhooks',
      api(t, 'POST', '/webhooks', {
        token: tenant.owner.token,
        // A literal public address: checked without a DNS look-up; nothing is delivered here.
        body: { url: 'https://1.1.1.1/sdcs-examples', events: ['period.locked'] },
      }),
    )
  ).id as string;

  const invitee = newEmail();
  await must(
    'POST /organizations/current/invitations',
    api(t, 'POST', '/organizations/current/invitations', {
      token: tenant.owner.token,
      body: { email: invitee, assignedSiteIds: [ids.site], role: 'COLLECTOR' },
    }),
  );
  const token = await invitationHelpers(t).tokenMailedTo(invitee);

  const map = replacements();
  for (const key of Object.keys(EXAMPLE_IDS) as (keyof typeof EXAMPLE_IDS)[]) {
    if (!ids[key]) throw new Error(`seedWorld has no record for EXAMPLE_IDS.${key}`);
  }
  map.set(EXAMPLE_INVITATION_TOKEN, token);
  // A finished OIDC sign-in of the owner: its one-time code (as the callback hands it to the app).
  const ssoCode = `sdcs_sso_${randomBytes(16).toString('hex')}`;
  await t.database.system((tx) =>
    tx
      .insertInto('oidc_handoffs')
      .values({
        code_hash: sha256Hex(ssoCode),
        organization_id: tenant.organizationId,
        user_id: tenant.owner.userId,
        expires_at: new Date(Date.now() + 600_000),
      })
      .execute(),
  );
  map.set(EXAMPLE_SSO_CODE, ssoCode);
  map.set(EXAMPLE_ADAPTER_VERSION, adapter.adapterVersion as string);
  return { tenant, replacements: map };
}

const HOW_TO_ADD =
  'Add `examples: [<a realistic body>]` to the options of the body schema (TypeBox), e.g. ' +
  '`Type.Object({...}, { additionalProperties: false, examples: [{ name: "Lyon plant" }] })`. ' +
  'Name records by the placeholder ids of src/http/examples.ts (EXAMPLE_IDS); a new kind of record ' +
  'needs a placeholder there and a seeded record in seedWorld() of test/openapi-examples.test.ts, ' +
  'a new path parameter an entry in its PATH_RECORDS.';

describe('the request examples of the OpenAPI document', () => {
  it('every operation with a request body has an example', () => {
    const missing = bodyOperations(dereferenced(t.app.swagger()) as unknown as OpenApiDoc)
      .filter((op) => op.examples.length === 0)
      .map((op) => `${op.method} ${op.path}`);
    expect(missing, `Operations without a request example. ${HOW_TO_ADD}`).toEqual([]);
  });

  it('every example is accepted by the service, with the documented success status', async () => {
    const doc = dereferenced(t.app.swagger()) as unknown as OpenApiDoc;
    await createOrganizationWithKey(t.database, {
      organizationName: 'Analytical Engines',
      name: 'Ada Lovelace',
      ...EXAMPLE_LOGIN,
    });
    const failures: string[] = [];
    let sent = 0;
    for (const op of bodyOperations(doc)) {
      for (const example of op.examples) {
        const label = `${op.method} ${op.path} (${example.name})`;
        const world = await seedWorld(t, doc);
        let url = op.path;
        let unknownParam: string | undefined;
        url = url.replace(/\{(\w+)\}/g, (_, param: string) => {
          const record = pathRecord(op.path, param);
          if (!record) unknownParam = param;
          return record ? world.replacements.get(EXAMPLE_IDS[record])! : param;
        });
        if (unknownParam) {
          failures.push(`${label}: no seeded record for the path parameter {${unknownParam}}. ${HOW_TO_ADD}`);
          continue;
        }
        // An example may need a higher role than the operation's (a top-level site: owners).
        const role = example.minRole ?? op.minRole;
        const token = role ? memberOf(world.tenant, role).token : undefined;
        const res = await t.app.inject({
          method: op.method as 'POST',
          url,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            // POST /source-imports requires one (a new one per call).
            'idempotency-key': `example-${sent}-${Date.now()}`,
          },
          payload: substitute(example.value, world.replacements) as object,
        });
        sent++;
        if (res.statusCode !== op.successStatus) {
          failures.push(`${label}: expected ${op.successStatus}, got ${res.statusCode} ${res.body}`);
        }
      }
    }
    expect(failures, `Documented examples the service refuses. ${HOW_TO_ADD}`).toEqual([]);
    expect(sent).toBeGreaterThan(20);
  }, 300_000);
});

/**
 * What Swagger UI's "Try it out" fills in from a schema when no example is given: the first
 * `examples` entry, else the first alternative of a union, else a value of the type.
 */
function sample(schema: Record<string, any>): unknown {
  if (Array.isArray(schema['examples']) && schema['examples'].length) return schema['examples'][0];
  if (schema['example'] !== undefined) return schema['example'];
  if (schema['default'] !== undefined) return schema['default'];
  const union = schema['oneOf'] ?? schema['anyOf'];
  if (Array.isArray(union)) return sample(union[0]);
  if (Array.isArray(schema['enum'])) return schema['enum'][0];
  const type = Array.isArray(schema['type']) ? schema['type'][0] : schema['type'];
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries<Record<string, any>>(schema['properties'] ?? {}).map(([k, v]) => [k, sample(v)]),
      );
    case 'array':
      return schema['items'] ? [sample(schema['items'])] : [];
    case 'integer':
    case 'number':
      return schema['minimum'] ?? 0;
    case 'boolean':
      return true;
    case 'string':
      return 'string';
  }
  return null;
}

describe('the OpenAPI document for people trying it out', () => {
  it('the body generated for POST /form-submissions names form, site and element once, and is accepted', async () => {
    const doc = dereferenced(t.app.swagger()) as unknown as OpenApiDoc;
    const schema = doc.paths[`${API_PREFIX}/form-submissions`]!['post']!['requestBody'].content[
      'application/json'
    ].schema as Record<string, any>;
    const body = sample(schema) as Record<string, any>;
    expect(body['year']).toBe(2025);
    expect(Object.keys(body).filter((k) => /^(form|site)/.test(k))).toEqual(['formId', 'siteId']);
    expect(Object.keys(body['values'][0]).filter((k) => k.startsWith('element'))).toEqual(['elementKey']);
    // Sent as generated, with the ids of the organization in place of the placeholders.
    const world = await seedWorld(t, doc);
    const res = await api(t, 'POST', '/form-submissions', {
      token: world.tenant.collector.token,
      body: substitute(body, world.replacements),
    });
    expect(res.status, JSON.stringify([body, res.body])).toBe(200);
  });

  it('every error answer is documented with an example of the error body', () => {
    const doc = dereferenced(t.app.swagger()) as unknown as OpenApiDoc;
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries<Record<string, any>>(op['responses'] ?? {})) {
          if (Number(status) < 400) continue;
          const content = response['content'] ?? {};
          const json = content['application/json']?.example;
          const xml = content['application/xml']?.example;
          // The JSON error body, or (the S3-style upload) S3's XML error document.
          if (
            content['application/json'] &&
            (typeof json?.code !== 'string' || typeof json?.message !== 'string')
          ) {
            missing.push(`${method.toUpperCase()} ${path} ${status}`);
          }
          if (content['application/xml'] && !/<Error><Code>\w+<\/Code>/.test(String(xml))) {
            missing.push(`${method.toUpperCase()} ${path} ${status} (XML)`);
          }
          if (!content['application/json'] && !content['application/xml']) {
            missing.push(`${method.toUpperCase()} ${path} ${status}: no error body`);
          }
        }
      }
    }
    expect(
      missing,
      'Error responses without an example: add one per status to ERROR_EXAMPLES in src/http/schemas.ts',
    ).toEqual([]);
  });
});

const PLACEHOLDER_VALUES = [
  ...Object.values(EXAMPLE_IDS),
  EXAMPLE_INVITATION_TOKEN,
  EXAMPLE_SSO_CODE,
  EXAMPLE_ADAPTER_VERSION,
  EXAMPLE_LOGIN.email,
];
const namesRecords = (value: unknown) => PLACEHOLDER_VALUES.some((p) => JSON.stringify(value).includes(p));

describe('examples people can use as they are (issue 26)', () => {
  it('every request body has named examples, each with a summary; those naming records say so', () => {
    const doc = dereferenced(t.app.swagger()) as unknown as OpenApiDoc;
    const problems: string[] = [];
    for (const op of bodyOperations(doc)) {
      const media = doc.paths[op.path]![op.method.toLowerCase()]!['requestBody'].content['application/json'];
      if (media.example !== undefined) problems.push(`${op.method} ${op.path}: an unnamed example`);
      for (const example of op.examples) {
        const label = `${op.method} ${op.path} (${example.name})`;
        if (/^example\d+$/.test(example.name)) problems.push(`${label}: not named`);
        if (!example.summary) problems.push(`${label}: no summary`);
        if (namesRecords(example.value) && !/needs existing records/i.test(example.description ?? ''))
          problems.push(`${label}: names records without saying so in its description`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the first example of POST /sites names no record and works as it is on a new organization', async () => {
    const doc = dereferenced(t.app.swagger()) as unknown as OpenApiDoc;
    const first = bodyOperations(doc).find((o) => o.method === 'POST' && o.path === `${API_PREFIX}/sites`)!
      .examples[0]!;
    expect(namesRecords(first.value)).toBe(false);
    const fresh = await createTenant(t);
    const res = await api(t, 'POST', '/sites', { token: fresh.owner.token, body: first.value });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('the first example of every create that names no record works as it is on a new organization', async () => {
    const doc = dereferenced(t.app.swagger()) as unknown as OpenApiDoc;
    const failures: string[] = [];
    let sent = 0;
    for (const op of bodyOperations(doc)) {
      const first = op.examples[0];
      const operationId = doc.paths[op.path]![op.method.toLowerCase()]!['operationId'] as string | undefined;
      if (!first || !operationId?.endsWith('.create') || namesRecords(first.value) || op.path.includes('{'))
        continue;
      const fresh = await createTenant(t);
      const role = first.minRole ?? op.minRole;
      const res = await t.app.inject({
        method: op.method as 'POST',
        url: op.path,
        headers: role ? { authorization: `Bearer ${memberOf(fresh, role).token}` } : {},
        payload: first.value as object,
      });
      sent++;
      if (res.statusCode !== op.successStatus) failures.push(`${operationId}: ${res.statusCode} ${res.body}`);
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(3);
  }, 120_000);

  it('every success response is described (no "Default Response")', () => {
    const doc = dereferenced(t.app.swagger()) as unknown as OpenApiDoc;
    const bland: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries<Record<string, any>>(op['responses'] ?? {})) {
          if (!response['description'] || response['description'] === 'Default Response')
            bland.push(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    expect(bland).toEqual([]);
  });

  it('the 400 example of every operation is one it answers', async () => {
    const doc = dereferenced(t.app.swagger()) as unknown as OpenApiDoc;
    const tenant = await createTenant(t);
    const failures: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const example = op['responses']?.['400']?.content?.['application/json']?.example;
        if (!example) continue; // the upload answers S3's XML
        const issue = example.issues[0] as { path: string; message: string };
        let url = path.replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000');
        let payload: Record<string, unknown> | undefined;
        if (issue.path.startsWith('query.')) {
          url += `?${issue.path.slice('query.'.length)}=1`;
          // A valid body, so that the query is what is refused.
          const media = op['requestBody']?.content?.['application/json'];
          if (media)
            payload = Object.values<{ value: Record<string, unknown> }>(media.examples ?? {})[0]?.value ?? {};
        } else {
          // The first example without the field the 400 example says is missing.
          const media = op['requestBody'].content['application/json'];
          const first =
            Object.values<{ value: Record<string, unknown> }>(media.examples ?? {})[0]?.value ?? {};
          payload = Object.fromEntries(Object.entries(first).filter(([k]) => k !== issue.path));
        }
        const role = op['x-min-role'] as Role | undefined;
        const res = await t.app.inject({
          method: method.toUpperCase() as 'GET',
          url,
          headers: role ? { authorization: `Bearer ${memberOf(tenant, role).token}` } : {},
          ...(payload ? { payload } : {}),
        });
        const body = res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : {};
        if (
          res.statusCode !== 400 ||
          !body.issues?.some((i: typeof issue) => i.path === issue.path && i.message === issue.message)
        )
          failures.push(`${method.toUpperCase()} ${path}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
