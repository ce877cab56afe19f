// Issue 41, item 1: a download whose client stops reading is cut after the send timeout and gives
// back what it held; concurrent exports are capped per caller and per organization (429).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { api, testConfig, useTestApp } from '../helpers/app.ts';
import { addMember, assignSites, createTenant, type Tenant } from '../helpers/factories.ts';
import {
  connections,
  listen,
  livePlaces,
  openCursors,
  type StalledDownload,
  seedValues,
  stalledDownload,
  until,
} from './stalled-clients.ts';

const SEND_TIMEOUT_MS = 1_500;
const t = useTestApp({ sendTimeoutMs: SEND_TIMEOUT_MS });
const VALUES = '/api/v1/exports/values?year=2025';
let a: Tenant;
let b: Tenant;
let port: number;
/** A second service over the same database: caps of 2 per caller and 3 per organization, no cut. */
let capped: FastifyInstance;
let cappedPort: number;
let siteIds: string[];

beforeAll(async () => {
  a = await createTenant(t);
  b = await createTenant(t);
  siteIds = await seedValues(t, a);
  await assignSites(t, a.organizationId, a.viewer.userId, siteIds);
  port = await listen(t.app);
  capped = await buildApp({
    database: t.database,
    config: testConfig({ sendTimeoutMs: 60_000, exportsPerCaller: 2, exportsPerOrganization: 3 }),
  });
  cappedPort = await listen(capped);
}, 120_000);

afterAll(async () => {
  await capped?.close();
});

describe('a download whose client stops reading', () => {
  it('is cut after the send timeout, and its transaction and connection are given back', async () => {
    const stalled = await stalledDownload(port, a.viewer.token, VALUES);
    expect(stalled.status).toBe(200);
    const since = performance.now();
    if (t.database.engine === 'postgres') {
      // While the client does not read, the export holds its cursor on a connection of the export
      // lane's worker (decision 235): none of the request loop's pools.
      expect(await until(async () => (await openCursors(t)) === 1, 5_000)).toBe(true);
      expect(t.database.streamPoolStats().inUse).toBe(0);
      expect(t.database.poolStats().inUse).toBe(0);
    }
    expect(await connections(t.app)).toBe(1);
    // The server closes the connection once nothing has gone out for the send timeout.
    expect(await until(async () => (await connections(t.app)) === 0, SEND_TIMEOUT_MS + 8_000)).toBe(true);
    const elapsed = performance.now() - since;
    expect(elapsed).toBeGreaterThan(SEND_TIMEOUT_MS * 0.6);
    if (t.database.engine === 'postgres') {
      expect(await until(async () => (await openCursors(t)) === 0, 3_000)).toBe(true);
      expect(await until(() => t.database.streamPoolStats().inUse === 0, 3_000)).toBe(true);
    }
    // The export's place is given back by a short delete on the request pool (decision 204).
    expect(await until(() => t.database.poolStats().inUse === 0, 3_000)).toBe(true);
    // The client, reading again, gets a body cut short (a chunked answer that never ends).
    expect((await stalled.resume()).complete).toBe(false);
    // The service answers; the viewer's place is free again (two exports at once are allowed).
    expect((await api(t, 'GET', '/me', { token: a.viewer.token })).status).toBe(200);
    const again = await Promise.all([1, 2].map(() => stalledDownload(port, a.viewer.token, VALUES)));
    expect(again.map((d) => d.status)).toEqual([200, 200]);
    for (const d of again) d.drop();
    expect(await until(async () => (await connections(t.app)) === 0, 5_000)).toBe(true);
    // Their places are given back (counted across processes, so the next test's app sees them).
    expect(await until(async () => (await livePlaces(t, a.organizationId)) === 0, 10_000)).toBe(true);
  }, 40_000);
});

describe('exports running at once', () => {
  it('are capped per caller and per organization, with 429 and Retry-After beyond', async () => {
    const held: StalledDownload[] = [];
    try {
      // Five at once from one viewer: two run, three are refused.
      const viewer = await Promise.all(
        Array.from({ length: 5 }, () => stalledDownload(cappedPort, a.viewer.token, VALUES)),
      );
      held.push(...viewer);
      expect(viewer.map((d) => d.status).sort()).toEqual([200, 200, 429, 429, 429]);
      for (const refused of viewer.filter((d) => d.status === 429)) {
        expect(refused.headers['retry-after']).toBe('10');
        expect(refused.body).toEqual({
          code: 'TOO_MANY_REQUESTS',
          message:
            'You already have 2 exports running, the most one user may run at once; try again when one has finished',
        });
      }
      // Another member of the organization: one more fits the organization's 3, the next does not.
      const second = await addMember(t, a.organizationId, 'VIEWER');
      await assignSites(t, a.organizationId, second.userId, siteIds);
      const member = await Promise.all([1, 2].map(() => stalledDownload(cappedPort, second.token, VALUES)));
      held.push(...member);
      expect(member.map((d) => d.status).sort()).toEqual([200, 429]);
      expect(member.find((d) => d.status === 429)!.body!.message).toBe(
        'Your organization already has 3 exports running, the most it may run at once; try again when one has finished',
      );
      // The audit pack counts as one export too.
      const pack = await stalledDownload(cappedPort, a.owner.token, '/api/v1/exports/audit-pack?year=2025');
      held.push(pack);
      expect(pack.status).toBe(429);
      // Another organization is not affected.
      const other = await stalledDownload(cappedPort, b.viewer.token, VALUES);
      held.push(other);
      expect(other.status).toBe(200);
      if (t.database.engine === 'postgres') {
        expect(await until(async () => (await openCursors(t)) === 3, 5_000)).toBe(true);
      }
    } finally {
      for (const d of held) d.drop();
    }
    // Once the clients are gone, the places are free again.
    if (t.database.engine === 'postgres') {
      expect(await until(async () => (await openCursors(t)) === 0, 5_000)).toBe(true);
    }
    expect(await until(async () => (await connections(capped)) === 0, 5_000)).toBe(true);
    const after = await Promise.all([1, 2].map(() => stalledDownload(cappedPort, a.viewer.token, VALUES)));
    expect(after.map((d) => d.status)).toEqual([200, 200]);
    for (const d of after) d.drop();
  }, 40_000);
});

describe('the OpenAPI document', () => {
  it('declares the 429 of the export caps, with Retry-After, on every export route', () => {
    const doc = t.app.swagger() as {
      paths: Record<string, { get: { responses: Record<string, Record<string, any>> } }>;
    };
    for (const route of ['values', 'activities', 'history', 'audit-pack']) {
      const refused = doc.paths[`/api/v1/exports/${route}`]!.get.responses['429']!;
      expect(refused['description']).toMatch(/SDCS_EXPORTS_PER_CALLER.*SDCS_EXPORTS_PER_ORGANIZATION/);
      expect(refused['headers']['Retry-After']).toBeDefined();
    }
  });
});
