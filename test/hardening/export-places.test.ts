// Decision 204: the export caps per caller and per organization hold across service processes.
// Two apps over one database stand for two processes (each has its own gate and stream pool);
// parallel requests to both must not admit more than the organization's cap in all, and a place
// left by a process that died stops counting when its lease runs out.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { testConfig, useTestApp } from '../helpers/app.ts';
import { addMember, assignSites, createTenant, type Tenant } from '../helpers/factories.ts';
import {
  connections,
  listen,
  livePlaces as places,
  type StalledDownload,
  seedValues,
  stalledDownload,
  until,
} from './stalled-clients.ts';

const t = useTestApp({ exportsPerCaller: 2, exportsPerOrganization: 3, sendTimeoutMs: 60_000 });
const VALUES = '/api/v1/exports/values?year=2025';
let a: Tenant;
let other: FastifyInstance;
let ports: number[];
let viewers: string[];

const livePlaces = (organizationId: string) => places(t, organizationId);

beforeAll(async () => {
  a = await createTenant(t);
  const sites = await seedValues(t, a, 20);
  viewers = [];
  for (let i = 0; i < 4; i++) {
    const m = await addMember(t, a.organizationId, 'VIEWER');
    await assignSites(t, a.organizationId, m.userId, sites);
    viewers.push(m.token);
  }
  other = await buildApp({
    database: t.database,
    config: testConfig({ exportsPerCaller: 2, exportsPerOrganization: 3, sendTimeoutMs: 60_000 }),
  });
  ports = [await listen(t.app), await listen(other)];
}, 120_000);

afterAll(async () => {
  await other?.close();
});

const dropAll = async (held: StalledDownload[]) => {
  for (const d of held) d.drop();
  for (const app of [t.app, other])
    expect(await until(async () => (await connections(app)) === 0, 10_000)).toBe(true);
  expect(await until(async () => (await livePlaces(a.organizationId)) === 0, 5_000)).toBe(true);
};

describe('export caps across two service processes', () => {
  it('admit no more than the organization’s cap in all when parallel requests reach both', async () => {
    // 12 exports at once from four viewers, alternately on the two processes: each process alone
    // would admit 3 (its in-memory count), together 6; the shared count admits 3.
    const held = await Promise.all(
      Array.from({ length: 12 }, (_, k) => stalledDownload(ports[k % 2]!, viewers[k % 4]!, VALUES)),
    );
    try {
      const statuses = held.map((d) => d.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(3);
      expect(statuses.filter((s) => s === 429)).toHaveLength(9);
      expect(held.filter((d) => d.status === 429).map((d) => d.body!.message)).toContain(
        'Your organization already has 3 exports running, the most it may run at once; try again when one has finished',
      );
      expect(await livePlaces(a.organizationId)).toBe(3);
    } finally {
      await dropAll(held);
    }
  }, 60_000);

  it('count one caller’s exports on both processes against the caller’s cap', async () => {
    const held = await Promise.all(
      Array.from({ length: 4 }, (_, k) => stalledDownload(ports[k % 2]!, viewers[0]!, VALUES)),
    );
    try {
      expect(held.map((d) => d.status).sort()).toEqual([200, 200, 429, 429]);
      const refused = held.find((d) => d.status === 429)!;
      expect(refused.headers['retry-after']).toBe('10');
      expect(refused.body!.message).toBe(
        'You already have 2 exports running, the most one user may run at once; try again when one has finished',
      );
    } finally {
      await dropAll(held);
    }
  }, 60_000);

  it('stop counting a place whose process died once its lease has run out', async () => {
    // Three places of a process that stopped without giving them back: the organization is full.
    await t.database.tenant(a.organizationId, (tx) =>
      sql`insert into export_places (organization_id, caller, expires_at)
          select ${a.organizationId}, 'user:gone', now() + interval '1 minute' from generate_series(1, 3)`.execute(
        tx,
      ),
    );
    const refused = await stalledDownload(ports[0]!, viewers[1]!, VALUES);
    expect(refused.status).toBe(429);
    expect(refused.body!.message).toMatch(/Your organization already has 3 exports running/);
    // Their lease runs out (as it would a minute after the process died): the places are free.
    await t.database.system((tx) =>
      sql`update export_places set expires_at = now() - interval '1 second' where caller = 'user:gone'`.execute(
        tx,
      ),
    );
    const held = await Promise.all([0, 1].map((k) => stalledDownload(ports[k]!, viewers[1]!, VALUES)));
    try {
      expect(held.map((d) => d.status)).toEqual([200, 200]);
    } finally {
      await dropAll(held);
    }
  }, 60_000);

  it('an export refused for its input leaves no place behind by the time it answers (found by the fuzz)', async () => {
    // The place is taken before the filters are read; a 400 then gives it back before answering.
    const rows = async () =>
      (
        await t.database.system((tx) =>
          sql<{ n: number }>`select count(*)::int as n from export_places
                              where organization_id = ${a.organizationId}`.execute(tx),
        )
      ).rows[0]!.n;
    const before = await rows();
    for (const path of [
      '/api/v1/exports/audit-pack?year=1905&siteIds=%5B%22constructor%22%5D',
      '/api/v1/exports/values?year=2025&siteIds=%5B%22constructor%22%5D',
    ]) {
      const res = await t.app.inject({
        method: 'GET',
        url: path,
        headers: { authorization: `Bearer ${a.apiKey}` },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(await rows(), path).toBe(before);
    }
  });
});
