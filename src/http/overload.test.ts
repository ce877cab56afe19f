// The overload answer goes to the organization causing the load (decision 0177): a bare Fastify
// app with the service's overload protection, a heap limit every process is over, and a stand-in
// for authentication that takes the organization from a header.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Caller } from '../domain/caller.ts';
import { registerErrorHandling } from './error-handler.ts';
import { type LoadSources, refuseBusyUnderPressure, registerOverloadProtection } from './overload.ts';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function appWith(load: LoadSources) {
  const app = Fastify();
  apps.push(app);
  registerErrorHandling(app);
  await registerOverloadProtection(
    app,
    { maxEventLoopDelayMs: 0, maxHeapUsedBytes: 1, sampleIntervalMs: 20 },
    undefined,
    load,
  );
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request) => {
    const org = request.headers['x-org'];
    if (typeof org === 'string') request.caller = { organizationId: org } as Caller;
  });
  refuseBusyUnderPressure(app, load);
  app.get('/api/v1/things', async () => ({ ok: true }));
  app.get('/api/v1/health/ready', async () => ({ status: 'ready' }));
  await app.ready();
  // Two samples after ready (start-up is not load).
  await new Promise((r) => setTimeout(r, 120));
  return app;
}

const get = (app: FastifyInstance, url: string, org?: string) =>
  app.inject({ method: 'GET', url, headers: org ? { 'x-org': org } : {} });

describe('overload under heavy work', () => {
  it('refuses only the organization with heavy work in flight; the others and readiness go on', async () => {
    const app = await appWith({ any: () => true, busy: (org) => org === 'A' });
    const a = await get(app, '/api/v1/things', 'A');
    expect(a.statusCode).toBe(503);
    expect(a.headers['retry-after']).toMatch(/^\d+$/);
    expect(a.json()).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('your organization’s large operations'),
    });
    expect((await get(app, '/api/v1/things', 'B')).statusCode).toBe(200);
    expect((await get(app, '/api/v1/health/ready')).statusCode).toBe(200);
  });

  it('refuses everyone, readiness included, when no heavy work explains the pressure', async () => {
    const app = await appWith({ any: () => false, busy: () => false });
    expect((await get(app, '/api/v1/things', 'B')).statusCode).toBe(503);
    expect((await get(app, '/api/v1/health/ready')).statusCode).toBe(503);
  });
});
