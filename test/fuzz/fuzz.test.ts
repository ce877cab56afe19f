import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/app.ts';
import { shutdownSandbox } from '../../src/sandbox/index.ts';
import { api, useTestApp } from '../helpers/app.ts';
import {
  activateForm,
  assignSites,
  createActivityDefinition,
  createDataset,
  createDatasetItem,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../helpers/factories.ts';
import { documentChecker } from '../helpers/openapi-check.ts';
import { type FuzzRequest, type Operation, operationsOf, requestOf, tenantSnapshot } from './openapi.fuzz.ts';

/**
 * Property-based requests over every operation of the OpenAPI document, with a credential of
 * each role: never a 500 (nor any 5xx), every error answer has the error body, and an error
 * answer wrote nothing (a fingerprint of every tenant table before and after).
 *
 * `FUZZ_RUNS` requests per operation (default 12) from `FUZZ_SEED` (default 20261123);
 * `npm run fuzz` runs longer; `FUZZ_ONLY` (a regular expression on `METHOD /path`) narrows it.
 * A failure prints the seed and path to replay it.
 */
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 12);
const SEED = Number(process.env['FUZZ_SEED'] ?? 20261123);
/** `FUZZ_ONLY`: a regular expression on `METHOD /path` to fuzz some operations longer (same seeds). */
const ONLY = process.env['FUZZ_ONLY'] ? new RegExp(process.env['FUZZ_ONLY']) : undefined;

const t = useTestApp();
let tenant: Tenant;
let tokens: string[];
let ids: string[];
let last: Record<string, string>;
/** Answers by status, printed at the end (how much of the run got past validation). */
const statuses = new Map<number, number>();

/** Operations that would end the credentials the run uses. */
const SKIP = new Set([`POST ${API_PREFIX}/auth/logout`]);
/** Tables that record use rather than data (credential last use): they change on every call. */
const NOT_DATA = new Set(['access_tokens', 'api_keys']);

const doc = () => t.app.swagger();
let operations: Operation[] = [];
let check: ReturnType<typeof documentChecker>;

beforeAll(async () => {
  tenant = await createTenant(t);
  const other = await createTenant(t);
  tokens = [tenant.owner.token, tenant.manager.token, tenant.collector.token, tenant.viewer.token];
  const site = await createSite(t, tenant.organizationId, { name: 'Fuzz site' });
  const child = await createSite(t, tenant.organizationId, { name: 'Fuzz child', parentId: site });
  const hidden = await createSite(t, tenant.organizationId, { name: 'Fuzz hidden' });
  for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
    await assignSites(t, tenant.organizationId, member.userId, [site]);
  }
  const definition = await createActivityDefinition(t, tenant.organizationId, {
    key: 'fuzz-trips',
    inputs: [{ name: 'km', type: 'number', required: true }],
    calcCode: 'return inputs.km * 0.2',
  });
  const form = await createForm(t, tenant, {
    periodType: 'YEARLY',
    elements: [
      { key: 'amount', label: 'Amount', type: 'NUMBER' },
      { key: 'note', label: 'Note', type: 'TEXT' },
      { label: 'Trips', type: 'ACTIVITY', activityDefinitionId: definition },
    ],
  });
  await activateForm(t, tenant, form.id, [site, child, hidden], [2025]);
  const submitted = await api(t, 'POST', '/form-submissions', {
    token: tenant.owner.token,
    body: {
      formId: form.id,
      siteId: site,
      year: 2025,
      values: [
        { elementKey: 'amount', periodUnit: 1, value: 5 },
        { elementKey: 'fuzz-trips', periodUnit: 1, value: [{ km: 10 }] },
      ],
    },
  });
  if (submitted.status !== 200) throw new Error(JSON.stringify(submitted.body));
  const dataset = await createDataset(t, tenant.organizationId);
  const item = await createDatasetItem(t, tenant.organizationId, dataset, { key: 'k', value: 1, year: 2024 });
  const otherSite = await createSite(t, other.organizationId);
  const apiKey = await api(t, 'POST', '/apikeys', { token: tenant.owner.token, body: { name: 'fuzz' } });
  ids = [
    site,
    child,
    hidden,
    definition,
    form.id,
    ...form.elements.map((e) => e.id),
    submitted.body.id,
    ...submitted.body.values.map((v: { formElementSubmissionId: string }) => v.formElementSubmissionId),
    submitted.body.values[1].activities[0].activityId,
    dataset,
    item,
    otherSite,
    other.organizationId,
    tenant.organizationId,
    apiKey.body.id,
  ];
  operations = operationsOf(doc(), SKIP);
  check = documentChecker(doc() as Record<string, unknown>);
  last = await tenantSnapshot(t, NOT_DATA);
});

afterAll(async () => {
  const counts = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
  console.info(`fuzz (seed ${SEED}, ${RUNS} per operation): ${counts.join(', ')}`);
  await shutdownSandbox();
});

const ERROR_BODY = (body: unknown) => {
  const b = body as { code?: unknown; message?: unknown; issues?: unknown };
  if (typeof b !== 'object' || b === null) return false;
  if (typeof b.code !== 'string' || typeof b.message !== 'string') return false;
  if (b.issues === undefined) return true;
  return (
    Array.isArray(b.issues) &&
    b.issues.every(
      (i: { message?: unknown; path?: unknown }) =>
        typeof i.message === 'string' && (i.path === undefined || typeof i.path === 'string'),
    )
  );
};

async function placesGivenBack() {
  for (let i = 0; i < 100; i++) {
    const { rows } = await t.database.system((tx) =>
      sql<{ n: number }>`select count(*)::int as n from export_places`.execute(tx),
    );
    if (rows[0]!.n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('an answered export kept its place for 5 s');
}

async function send(request: FuzzRequest) {
  const headers: Record<string, string> = { authorization: `Bearer ${tokens[request.role]}` };
  if (request.contentType) headers['content-type'] = request.contentType;
  const res = await t.app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers,
    ...(request.payload === undefined ? {} : { payload: request.payload }),
  });
  statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  // Every answer, success or error, is one the OpenAPI document declares (status, type, body, headers).
  const outside = check(request.method, request.url, res);
  expect(outside, `${request.method} ${request.url}`).toEqual([]);
  if (process.env['FUZZ_DEBUG'] && res.statusCode === 400)
    console.info(request.method, request.url, res.body.slice(0, 200));
  const where = `${request.method} ${request.url} as role ${request.role} with ${request.payload?.slice(0, 300)}`;
  expect(res.statusCode, `${where}\n-> ${res.body.slice(0, 500)}`).toBeLessThan(500);
  // An export that was answered gives its place back just after its last byte (decision 204):
  // wait for that, so that the next request is compared with a state that has settled.
  if (res.statusCode < 400 && request.url.startsWith('/api/v1/exports/')) await placesGivenBack();
  const now = await tenantSnapshot(t, NOT_DATA);
  if (res.statusCode >= 400) {
    let body: unknown;
    try {
      body = res.json();
    } catch {
      body = res.body;
    }
    // The S3-compatible upload endpoint answers as S3 does: an XML <Error> with a Code and a Message.
    const s3Error =
      String(res.headers['content-type']).startsWith('application/xml') &&
      /<Error><Code>\w+<\/Code><Message>[^<]+<\/Message>/.test(res.body);
    expect(s3Error || ERROR_BODY(body), `${where}\n-> not the error body: ${res.body.slice(0, 500)}`).toBe(
      true,
    );
    const changed = Object.keys(now).filter((table) => now[table] !== last[table]);
    expect(changed, `${where}\n-> ${res.statusCode} but wrote to ${changed.join(', ')}`).toEqual([]);
  }
  last = now;
}

describe('fuzzing every operation of the OpenAPI document', () => {
  it('covers the document', () => {
    expect(operations.length).toBeGreaterThan(30);
  });

  it(
    'never a 500, always the error body, no write on an error',
    async () => {
      for (const [index, op] of operations.entries()) {
        if (ONLY && !ONLY.test(`${op.method.toUpperCase()} ${op.path}`)) continue;
        await fc.assert(fc.asyncProperty(requestOf(op, ids, tokens.length), send), {
          seed: SEED + index,
          numRuns: RUNS,
          endOnFailure: true,
        });
      }
    },
    Math.max(120_000, RUNS * 60 * 1_000),
  );
});
