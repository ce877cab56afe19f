import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ActivityWorld, createActivityWorld } from '../../../test/helpers/activity-world.ts';
import { useTestApp } from '../../../test/helpers/app.ts';
import { API_PREFIX } from '../../app.ts';
import { sandboxPool, shutdownSandbox } from '../../sandbox/index.ts';

// A request whose client has gone stops calculating (nothing is written either).
const t = useTestApp({ calcRequestBudgetMs: 120_000 });
let w: ActivityWorld;

beforeAll(async () => {
  w = await createActivityWorld(t, {
    site: { name: 'Plant', assign: ['collector'] },
    definition: { calcCode: 'let x = 0; for (let i = 0; i < 20000; i++) x += i % 7; return 1' },
    key: 'fuel',
    periodType: 'YEARLY',
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(() => shutdownSandbox());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('stops calculating when the client disconnects', async () => {
  const { port } = t.app.server.address() as AddressInfo;
  const body = JSON.stringify({
    formId: w.form.id,
    siteId: w.site,
    year: 2025,
    values: [
      w.entry(
        1,
        Array.from({ length: 1000 }, (_, i) => ({ amount: i })),
      ),
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
      authorization: `Bearer ${w.tenant.collector.token}`,
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
  const stored = await t.database.tenant(w.tenant.organizationId, (tx) =>
    tx.selectFrom('activities').select('id').execute(),
  );
  expect(stored).toHaveLength(0);
});
