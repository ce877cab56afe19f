import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  assignSites,
  createActivityDefinition,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { API_PREFIX } from '../../app.ts';
import { sandboxPool, shutdownSandbox } from '../../sandbox/index.ts';

// A request whose client has gone stops calculating (nothing is written either).
const t = useTestApp({ calcRequestBudgetMs: 120_000 });
let tenant: Tenant;
let site: string;
let formId: string;

beforeAll(async () => {
  tenant = await createTenant(t);
  site = await createSite(t, tenant.organizationId, { name: 'Plant' });
  await assignSites(t, tenant.organizationId, tenant.collector.userId, [site]);
  const definition = await createActivityDefinition(t, tenant.organizationId, {
    calcCode: 'let x = 0; for (let i = 0; i < 20000; i++) x += i % 7; return 1',
  });
  const form = await createForm(t, tenant, {
    periodType: 'YEARLY',
    elements: [{ key: 'fuel', label: 'Fuel', type: 'ACTIVITY', activityDefinitionId: definition }],
  });
  formId = form.id;
  await activateForm(t, tenant, formId, [site], [2025]);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(() => shutdownSandbox());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('stops calculating when the client disconnects', async () => {
  const { port } = t.app.server.address() as AddressInfo;
  const body = JSON.stringify({
    formId,
    siteId: site,
    year: 2025,
    values: [
      { elementKey: 'fuel', periodUnit: 1, value: Array.from({ length: 1000 }, (_, i) => ({ amount: i })) },
    ],
  });
  const pool = sandboxPool();
  const before = pool.completed;
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: `${API_PREFIX}/form-submissions`,
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      authorization: `Bearer ${tenant.collector.token}`,
    },
  });
  req.on('error', () => undefined);
  req.end(body);
  // Wait until the calculations are under way, then hang up.
  for (let i = 0; i < 100 && pool.completed - before < 20; i++) await sleep(50);
  expect(pool.completed - before).toBeGreaterThanOrEqual(20);
  req.destroy();
  await sleep(300);
  const atStop = pool.completed;
  await sleep(1500);
  // At most the calculations already in flight finish; the other ~900 are never run.
  expect(pool.completed - atStop).toBeLessThanOrEqual(8);
  expect(pool.completed - before).toBeLessThan(900);
  const stored = await t.database.tenant(tenant.organizationId, (tx) =>
    tx.selectFrom('activities').select('id').execute(),
  );
  expect(stored).toHaveLength(0);
});
