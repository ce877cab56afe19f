import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import type { Database } from '../src/db/client.ts';
import { testConfig } from './helpers/app.ts';

/**
 * A client developer's view (issue 26): types generated from the served OpenAPI document with
 * openapi-typescript, and a small openapi-fetch scenario type-checked with `tsc --strict`. The
 * `@ts-expect-error` lines must fail to compile: a type that became loose (years as strings, a
 * role as any string, a mapping as unknown) makes them compile, and so fails this test.
 */
const DIR = join(import.meta.dirname, '..', 'test-output', 'typed-client');

const SCENARIO = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

type Role = 'OWNER' | 'MANAGER' | 'COLLECTOR' | 'VIEWER';

export async function scenario(token: string): Promise<void> {
  const client = createClient<paths>({
    baseUrl: 'http://localhost:3000',
    headers: { authorization: \`Bearer \${token}\` },
  });

  const me = await client.GET('/api/v1/me');
  if (me.data) {
    const role: Role = me.data.role;
    const credential: 'token' | 'apikey' = me.data.credential;
    void role;
    void credential;
  } else {
    // Every error answer has the error body.
    const code: string = me.error.code;
    void code;
  }

  const site = await client.POST('/api/v1/sites', { body: { name: 'Lyon plant', code: 'LYON-01' } });
  const siteId: string | undefined = site.data?.id;

  await client.GET('/api/v1/activities', {
    params: {
      query: {
        formId: 'energy',
        key: 'travel',
        years: [2024, 2025],
        periodUnits: [1, 2, 3],
        siteIds: siteId ? [siteId] : [],
      },
    },
  });
  await client.GET('/api/v1/activities', {
    // @ts-expect-error years are integers, not strings
    params: { query: { formId: 'energy', key: 'travel', years: ['2024'] } },
  });

  const adapters = await client.GET('/api/v1/source-adapter-definitions');
  for (const adapter of adapters.data ?? []) {
    // The mapping is typed in answers as in requests.
    const sheets: number = adapter.mapping.sheets.length;
    void sheets;
  }

  const members = await client.GET('/api/v1/organizations/current/members');
  for (const member of members.data ?? []) {
    // @ts-expect-error a role is one of four, not any string
    const role: 'SUPERUSER' = member.role;
    void role;
  }

  const dataset = await client.POST('/api/v1/datasets', {
    body: { name: 'Factors 2025', dataSource: 'National grid operator', version: '2025.1' },
  });
  const version: string | null | undefined = dataset.data?.version;
  void version;

  // The exports take periods as integers and statuses from their enum (issue 48).
  await client.GET('/api/v1/exports/values', {
    params: { query: { year: 2025, periodUnits: [10, 11, 12], statuses: ['APPROVED', 'REJECTED'], bom: false } },
    parseAs: 'stream',
  });
  await client.GET('/api/v1/exports/activities', {
    params: { query: { year: 2025, periodUnits: [1], statuses: ['COMPLETED'] } },
    parseAs: 'stream',
  });
  await client.GET('/api/v1/exports/history', {
    params: { query: { year: 2025, periodUnits: [3, 4] } },
    parseAs: 'stream',
  });
  await client.GET('/api/v1/exports/values', {
    // @ts-expect-error periods are integers, not strings
    params: { query: { year: 2025, periodUnits: ['10'] } },
  });
  await client.GET('/api/v1/exports/values', {
    // @ts-expect-error a status is one of three
    params: { query: { year: 2025, statuses: ['DONE'] } },
  });

  // explain is typed: no casts to read how a value was obtained (issue 44).
  const computed = await client.POST('/api/v1/indicators/current-values', {
    body: { indicatorIds: ['scope-2'], year: 2025, explain: true },
  });
  const explain = computed.data?.results['scope-2']?.explain;
  if (explain && !('truncated' in explain)) {
    const sitesInScope: number = explain.scope.sitesInScope;
    const withData: number[] = explain.operands.map((o) => o.sitesWithData);
    const floors: number[] = explain.functions.map((f) => f.result);
    const keys: string[] = (explain.siteCoefficients ?? []).map((c) => c.key);
    const nested: (number | null)[] = Object.values(explain.indicators).map((i) => i.value);
    void [sitesInScope, withData, floors, keys, nested];
    // @ts-expect-error a site count is a number, not a string
    const wrong: string = explain.scope.sitesInScope;
    void wrong;
  }

  const limited = await client.GET('/api/v1/me');
  if (limited.response.status === 429) {
    const retryAfter = limited.response.headers.get('retry-after');
    void retryAfter;
  }
}
`;

const run = promisify(execFile);

describe('a typed client generated from the document', () => {
  it('compiles under tsc --strict, and loose types would not', async () => {
    const app = await buildApp({ database: undefined as unknown as Database, config: testConfig() });
    await app.ready();
    const doc = app.swagger();
    await app.close();

    const types = astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0]));
    await mkdir(DIR, { recursive: true });
    await writeFile(join(DIR, 'schema.d.ts'), types);
    await writeFile(join(DIR, 'client.ts'), SCENARIO);
    const tsc = join(import.meta.dirname, '..', 'node_modules', 'typescript', 'bin', 'tsc');
    const args = [
      tsc,
      '--strict',
      '--noEmit',
      '--exactOptionalPropertyTypes',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--skipLibCheck',
      join(DIR, 'client.ts'),
    ];
    const result = await run(process.execPath, args).then(
      () => ({ ok: true, output: '' }),
      (error: { stdout?: string }) => ({ ok: false, output: error.stdout ?? String(error) }),
    );
    expect(result.output).toBe('');
    expect(result.ok).toBe(true);
  }, 120_000);
});
