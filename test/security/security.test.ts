import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/db/schema/index.ts';
import { api, useTestApp } from '../helpers/app.ts';
import { createTenant, issueToken, type Tenant } from '../helpers/factories.ts';
import { memberOf, rolesBelow, type SecurityCase } from './matrix.ts';

const modules = import.meta.glob<{ cases: SecurityCase[] }>('./cases/*.ts', { eager: true });
const cases = Object.values(modules).flatMap((m) => m.cases);

const t = useTestApp();
let a: Tenant;
let b: Tenant;

/** The token of `role` in tenant A, or a fresh one for calls that end their token. */
async function tokenOf(c: SecurityCase, role: Role): Promise<string> {
  const member = memberOf(a, role);
  return c.consumesToken ? issueToken(t, a.organizationId, member.userId) : member.token;
}

beforeAll(async () => {
  a = await createTenant(t, 'Tenant A');
  b = await createTenant(t, 'Tenant B');
});

describe.each(cases)('$method $route', (c) => {
  if (c.public) {
    it('answers without a credential', async () => {
      const { url, body } = await c.prepare(t, a);
      const res = await api(t, c.method, url, { body });
      expect(res.status).not.toBe(401);
    });
    return;
  }

  it('401 without a credential, and with an unknown one', async () => {
    const { url, body } = await c.prepare(t, a);
    const none = await api(t, c.method, url, { body });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHORIZED');
    const unknown = await api(t, c.method, url, { body, token: 'sdcs_not-a-real-key' });
    expect(unknown.status).toBe(401);
  });

  for (const role of rolesBelow(c.minRole!)) {
    it(`403 for ${role}`, async () => {
      const { url, body } = await c.prepare(t, a);
      const res = await api(t, c.method, url, { body, token: await tokenOf(c, role) });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });
  }

  it(`lets ${c.minRole} through`, async () => {
    const { url, body } = await c.prepare(t, a);
    const res = await api(t, c.method, url, { body, token: await tokenOf(c, c.minRole!) });
    expect([401, 403]).not.toContain(res.status);
  });

  if (c.tenantRecord) {
    it('404 for another tenant’s record', async () => {
      const { url, body } = await c.prepare(t, b);
      const res = await api(t, c.method, url, { body, token: a.owner.token });
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
