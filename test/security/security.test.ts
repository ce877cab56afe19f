import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Database } from '../../src/db/client.ts';
import type { Role } from '../../src/db/schema/index.ts';
import { rolesBelow } from '../../src/domain/roles.ts';
import { api, testConfig, useTestApp } from '../helpers/app.ts';
import { createTenant, issueToken, type Tenant } from '../helpers/factories.ts';
import { memberOf, type SecurityCase, type SiteCase } from './matrix.ts';
import { createPlants, type Plants } from './plants.ts';

const modules = import.meta.glob<{ cases: SecurityCase[]; siteCases?: SiteCase[] }>('./cases/*.ts', {
  eager: true,
});
const cases = Object.values(modules).flatMap((m) => m.cases);
const siteCases = Object.values(modules).flatMap((m) => m.siteCases ?? []);

const t = useTestApp();
let a: Tenant;
let b: Tenant;

interface Operation {
  'x-min-role'?: Role;
  security?: unknown[];
}

/**
 * Each route's declared access, as the OpenAPI document shows it: a minimum role, or public. Read
 * from an app built only for its document (building touches no database), so that the cases
 * can be laid out before the test app exists.
 */
async function declaredAccess(): Promise<Map<string, Role | 'public'>> {
  const probe = await buildApp({ database: undefined as unknown as Database, config: testConfig() });
  await probe.ready();
  const doc = probe.swagger() as { paths: Record<string, Record<string, Operation>> };
  await probe.close();
  const access = new Map<string, Role | 'public'>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const route = `${method.toUpperCase()} ${path.replace(/^\/api\/v1/, '').replace(/\{(\w+)\}/g, ':$1')}`;
      const declared = op.security?.length === 0 ? 'public' : op['x-min-role'];
      if (declared) access.set(route, declared);
    }
  }
  return access;
}

/** The token of `role` in tenant A, or a fresh one for calls that end their token. */
async function tokenOf(c: SecurityCase, role: Role): Promise<string> {
  const member = memberOf(a, role);
  return c.consumesToken ? issueToken(t, a.organizationId, member.userId) : member.token;
}

const access = await declaredAccess();

beforeAll(async () => {
  a = await createTenant(t, 'Tenant A');
  b = await createTenant(t, 'Tenant B');
});

describe.each(cases)('$method $route', (c) => {
  const declared = access.get(`${c.method} ${c.route}`);
  if (!declared) {
    it('is a documented route', () => {
      expect.fail(`${c.method} ${c.route} is not in the OpenAPI document`);
    });
    return;
  }
  if (declared === 'public') {
    it('answers without a credential', async () => {
      const { url, body, headers } = await c.prepare(t, a);
      const res = await api(t, c.method, url, { body, headers });
      expect(res.status).not.toBe(401);
    });
    return;
  }

  it('401 without a credential, and with an unknown one', async () => {
    const { url, body, headers } = await c.prepare(t, a);
    const none = await api(t, c.method, url, { body, headers });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHORIZED');
    const unknown = await api(t, c.method, url, { body, headers, token: 'sdcs_not-a-real-key' });
    expect(unknown.status).toBe(401);
  });

  for (const role of rolesBelow(declared)) {
    it(`403 for ${role}`, async () => {
      const { url, body, headers } = await c.prepare(t, a);
      const res = await api(t, c.method, url, { body, headers, token: await tokenOf(c, role) });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });
  }

  it(`lets ${declared} through`, async () => {
    const { url, body, headers } = await c.prepare(t, a);
    const res = await api(t, c.method, url, { body, headers, token: await tokenOf(c, declared) });
    expect(res.status, JSON.stringify(res.body)).toBe(c.successStatus ?? 200);
  });

  if (c.tenantRecord) {
    it('404 for another tenant’s record', async () => {
      const { url, body, headers } = await c.prepare(t, b);
      const res = await api(t, c.method, url, { body, headers, token: a.owner.token });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    });
  }
});

it('every API route has a case in the matrix', () => {
  const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map(
      (m) => `${m.toUpperCase()} ${path.replace(/^\/api\/v1/, '').replace(/\{(\w+)\}/g, ':$1')}`,
    ),
  );
  const covered = new Set(cases.map((c) => `${c.method} ${c.route}`));
  expect(documented.filter((r) => !covered.has(r))).toEqual([]);
  expect(documented.length).toBeGreaterThan(0);
});

describe('site limits: members limited to Plant 1, the owner seeing both plants', () => {
  let plants: Plants;
  beforeAll(async () => {
    plants = await createPlants(t);
  });

  describe.each(siteCases)('$method $route: $place', (c) => {
    const declared = access.get(`${c.method} ${c.route}`);
    it('is a documented, non-public route', () => {
      expect(declared, `${c.method} ${c.route}`).toBeDefined();
      expect(declared).not.toBe('public');
    });
    for (const [role, status] of Object.entries(c.expect) as [Role, number][]) {
      it(`${status} for ${role}`, async () => {
        const caller = plants.member(role);
        const { url, body, after } = await c.prepare(t, plants, caller);
        const res = await api(t, c.method, url, { body, token: caller.token });
        expect(res.status, JSON.stringify(res.body)).toBe(status);
        // A refusal says nothing of the record: a 404 is the plain not-found body.
        if (status === 404) expect(res.body.code).toBe('NOT_FOUND');
        if (status === 403) expect(res.body.code).toBe('FORBIDDEN');
        await after?.(res);
      });
    }
  });
});
