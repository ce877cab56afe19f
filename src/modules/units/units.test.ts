import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createTenant, type Tenant } from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  tenant = await createTenant(t);
  other = await createTenant(t);
});

const nights = { symbol: 'night', name: 'hotel night', dimension: 'stay', factorToBase: 1 };

describe('GET /units', () => {
  it('lists the catalog to every member, with deterministic ids and no organization', async () => {
    const res = await api(t, 'GET', '/units', { token: tenant.viewer.token });
    expect(res.status).toBe(200);
    const kWh = res.body.find((u: { symbol: string }) => u.symbol === 'kWh');
    expect(Object.keys(kWh).sort()).toEqual([
      'dimension',
      'factorToBase',
      'id',
      'name',
      'organizationId',
      'symbol',
    ]);
    expect(kWh).toMatchObject({ dimension: 'energy', factorToBase: 1, organizationId: null });
    const ids = await t.database.system((tx) =>
      tx
        .selectFrom('units')
        .select('id')
        .where('symbol', '=', 'kWh')
        .where('organization_id', 'is', null)
        .execute(),
    );
    expect(kWh.id).toBe(ids[0]!.id);
    expect(
      res.body.filter((u: { organizationId: unknown }) => u.organizationId === null).length,
    ).toBeGreaterThan(40);
  });

  it('401 without a credential', async () => {
    expect((await api(t, 'GET', '/units')).status).toBe(401);
  });
});

describe('POST /units', () => {
  it('adds a unit of the organization, listed after the catalog and invisible to others', async () => {
    const res = await api(t, 'POST', '/units', { token: tenant.manager.token, body: nights });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.any(String), ...nights, organizationId: tenant.organizationId });

    const mine = await api(t, 'GET', '/units', { token: tenant.collector.token });
    const symbols = mine.body.map((u: { symbol: string }) => u.symbol);
    expect(symbols).toContain('night');
    expect(symbols.indexOf('night')).toBeGreaterThan(symbols.indexOf('kWh'));
    const theirs = await api(t, 'GET', '/units', { token: other.owner.token });
    expect(theirs.body.map((u: { symbol: string }) => u.symbol)).not.toContain('night');
  });

  it('lets another organization use the same symbol for its own unit', async () => {
    const res = await api(t, 'POST', '/units', { token: other.owner.token, body: nights });
    expect(res.status).toBe(200);
    expect(res.body.organizationId).toBe(other.organizationId);
  });

  it('400 naming symbol for a catalog symbol or one the organization already has', async () => {
    for (const symbol of ['kWh', 'night']) {
      const res = await api(t, 'POST', '/units', { token: tenant.owner.token, body: { ...nights, symbol } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.issues).toEqual([expect.objectContaining({ path: 'symbol' })]);
    }
  });

  it('treats symbols as case-sensitive (MWH is not MWh)', async () => {
    const res = await api(t, 'POST', '/units', {
      token: tenant.owner.token,
      body: { symbol: 'MWH', name: 'odd megawatt-hour', dimension: 'energy', factorToBase: 1000 },
    });
    expect(res.status).toBe(200);
  });

  it('400 for missing, malformed or extra fields, and for factors that are not positive numbers', async () => {
    const bodies = [
      {},
      { ...nights, symbol: '' },
      { ...nights, symbol: 'two words' },
      { ...nights, dimension: 'not a slug' },
      { ...nights, factorToBase: 0 },
      { ...nights, factorToBase: -2 },
      { ...nights, factorToBase: '1' },
      { ...nights, extra: true },
    ];
    for (const body of bodies) {
      const res = await api(t, 'POST', '/units', { token: tenant.owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.issues.length).toBeGreaterThan(0);
    }
  });

  it('403 for collectors and viewers', async () => {
    for (const member of [tenant.collector, tenant.viewer]) {
      const res = await api(t, 'POST', '/units', { token: member.token, body: { ...nights, symbol: 'x1' } });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
  });

  it('401 without a credential', async () => {
    expect((await api(t, 'POST', '/units', { body: nights })).status).toBe(401);
  });
});
