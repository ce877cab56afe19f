import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, useTestApp } from '../../../test/helpers/app.ts';
import { buildSite, buildTenant } from '../../../test/helpers/builders.ts';
import { errorText } from '../../../test/helpers/errors.ts';
import type { Tenant } from '../../../test/helpers/factories.ts';
import { createSiteWorld } from '../../../test/helpers/site-world.ts';

const t = useTestApp();
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  tenant = await buildTenant(t);
  other = await buildTenant(t);
});

/** The API as one member, with typed answers. */
const as = (token: string) => {
  const http = client(t, { token });
  return {
    get: <U extends string>(url: U) => http.get(url),
    post: <U extends string>(url: U, body: unknown) => http.post(url, { body }),
    patch: <U extends string>(url: U, body: unknown) => http.patch(url, { body }),
    del: <U extends string>(url: U) => http.delete(url),
  };
};
const tree = () => createSiteWorld(t);

describe('creating and reading sites', () => {
  it('stores every field and answers with the same site on GET', async () => {
    const owner = as(tenant.owner.token);
    const created = await owner.post('/sites', {
      name: '  Lyon plant ',
      code: 'LYO-1',
      latitude: 45.76,
      longitude: 4.84,
      address: { line1: '1 rue de la Paix', line2: '  ', city: 'Lyon', country: 'FR' },
      metadata: { employees: 120, certified: true, tags: ['iso14001'] },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Lyon plant',
      code: 'LYO-1',
      parentId: null,
      latitude: 45.76,
      longitude: 4.84,
      address: { line1: '1 rue de la Paix', city: 'Lyon', country: 'FR' },
      metadata: { employees: 120, certified: true, tags: ['iso14001'] },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    const read = await owner.get(`/sites/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const child = await owner.post('/sites', { name: 'Lyon warehouse', parentId: created.body.id });
    expect(child.status).toBe(200);
    expect(child.body).toMatchObject({ parentId: created.body.id, code: null, address: null, metadata: {} });
  });

  it('rejects invalid fields with an issue naming each (400)', async () => {
    const owner = as(tenant.owner.token);
    const cases: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x', latitude: 90.5 }, 'latitude'],
      [{ name: 'x', longitude: -180.01 }, 'longitude'],
      [{ name: 'x', latitude: '45' }, 'latitude'],
      [{ name: 'x', code: '  ' }, 'code'],
      [{ name: 'x', colour: 'red' }, 'colour'],
      [{ name: 'x', address: { street: 'Main' } }, 'address.street'],
      [{ name: 'x', parentId: randomUUID() }, 'parentId'],
      [{ name: 'x', parentId: 'not-a-uuid' }, 'parentId'],
    ];
    for (const [body, path] of cases) {
      const res = await owner.post('/sites', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
  });

  it('does not accept another organization’s site as parent (400)', async () => {
    const foreign = (await buildSite(t, { tenant: other })).id;
    const res = await as(tenant.owner.token).post('/sites', { name: 'x', parentId: foreign });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path: 'parentId', message: expect.any(String) }]);
  });

  it('keeps codes unique in the organization, whatever the letter case (400 naming code)', async () => {
    const owner = as(tenant.owner.token);
    const first = await owner.post('/sites', { name: 'A', code: 'Dup-7' });
    expect(first.status).toBe(200);
    const again = await owner.post('/sites', { name: 'B', code: 'dup-7' });
    expect(again.status).toBe(400);
    expect(again.body.issues[0].path).toBe('code');
    const second = await owner.post('/sites', { name: 'B', code: 'Dup-8' });
    const clash = await owner.patch(`/sites/${second.body.id}`, { code: 'DUP-7' });
    expect(clash.status).toBe(400);
    expect(clash.body.issues[0].path).toBe('code');
    const recase = await owner.patch(`/sites/${first.body.id}`, { code: 'DUP-7' });
    expect(recase.status).toBe(200);
    expect(recase.body.code).toBe('DUP-7');
    // Another organization may use the same code.
    expect((await as(other.owner.token).post('/sites', { name: 'C', code: 'dup-7' })).status).toBe(200);
  });

  it('lets managers create under sites they manage, owners at the top (403 otherwise)', async () => {
    const { tenant: tn, europe, asia } = await tree();
    const manager = as(tn.manager.token);
    expect((await manager.post('/sites', { name: 'Berlin', parentId: europe })).status).toBe(200);
    const top = await manager.post('/sites', { name: 'Top' });
    expect(top.status).toBe(403);
    expect(top.body.code).toBe('FORBIDDEN');
    // A site the manager cannot see is not revealed: it is an unknown parentId.
    const hidden = await manager.post('/sites', { name: 'Tokyo', parentId: asia });
    expect(hidden.status).toBe(400);
    expect(hidden.body.issues[0].path).toBe('parentId');
    for (const member of [tn.collector, tn.viewer]) {
      expect((await as(member.token).post('/sites', { name: 'No', parentId: europe })).status).toBe(403);
    }
    expect((await as(tn.owner.token).post('/sites', { name: 'Americas' })).status).toBe(200);
  });
});

describe('listing sites', () => {
  it('shows owners every site and others their assigned subtree, sorted by name', async () => {
    const { tenant: tn, europe, paris, office, group, asia } = await tree();
    const all = await as(tn.owner.token).get('/sites');
    expect(all.status).toBe(200);
    expect(all.body.map((s: { name: string }) => s.name)).toEqual([
      'Asia',
      'Europe',
      'Group',
      'Paris',
      'Paris office',
    ]);
    const mine = await as(tn.viewer.token).get('/sites');
    expect(mine.body.map((s: { id: string }) => s.id)).toEqual([europe, paris, office]);
    expect(mine.body.map((s: { id: string }) => s.id)).not.toContain(group);
    expect(mine.body.map((s: { id: string }) => s.id)).not.toContain(asia);
  });

  it('filters by parent and by text in the name or code', async () => {
    const { tenant: tn, group, europe, paris, asia } = await tree();
    const owner = as(tn.owner.token);
    const children = await owner.get(`/sites?parentId=${group}`);
    expect(children.body.map((s: { id: string }) => s.id)).toEqual([asia, europe]);
    const byName = await owner.get('/sites?q=pari');
    expect(byName.body.map((s: { name: string }) => s.name)).toEqual(['Paris', 'Paris office']);
    const byCode = await owner.get('/sites?q=par');
    expect(byCode.body.map((s: { id: string }) => s.id)).toContain(paris);
    // The viewer cannot see Group, but may list Europe's children through it.
    const under = await as(tn.viewer.token).get(`/sites?parentId=${europe}`);
    expect(under.body.map((s: { id: string }) => s.id)).toEqual([paris]);
  });

  it('answers 400 naming parentId when the filter names no site the caller can see', async () => {
    const { tenant: tn, asia } = await tree();
    for (const parentId of [randomUUID(), 'nope']) {
      const res = await as(tn.owner.token).get(`/sites?parentId=${parentId}`);
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe('parentId');
    }
    const hidden = await as(tn.viewer.token).get(`/sites?parentId=${asia}`);
    expect(hidden.status).toBe(400);
    const leaf = await as(tn.owner.token).get(`/sites?parentId=${asia}`);
    expect(leaf.status).toBe(200);
    expect(leaf.body).toEqual([]);
  });

  it('answers 400 naming an unknown query parameter instead of ignoring it', async () => {
    const { tenant: tn, group } = await tree();
    const typo = await as(tn.owner.token).get(`/sites?parent=${group}`);
    expect(typo.status).toBe(400);
    expect(typo.body.code).toBe('BAD_REQUEST');
    expect(typo.body.issues).toMatchObject([{ path: 'query.parent' }]);
    const mixed = await as(tn.owner.token).get(`/sites?q=a&limit=5`);
    expect(mixed.status).toBe(400);
    expect(mixed.body.issues).toMatchObject([{ path: 'query.limit' }]);
  });
});

describe('reading one site', () => {
  it('is 404 for unknown, malformed, hidden and other organizations’ sites', async () => {
    const { tenant: tn, asia, paris } = await tree();
    const foreign = (await buildSite(t, { tenant: other })).id;
    expect((await as(tn.viewer.token).get(`/sites/${paris}`)).status).toBe(200);
    expect((await as(tn.viewer.token).get(`/sites/${paris.toUpperCase()}`)).body.id).toBe(paris);
    for (const [token, id] of [
      [tn.viewer.token, asia],
      [tn.owner.token, foreign],
      [tn.owner.token, randomUUID()],
      [tn.owner.token, 'x1'],
    ] as const) {
      const res = await as(token).get(`/sites/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });
});

describe('changing sites', () => {
  it('changes only the fields sent, and null clears optional ones', async () => {
    const owner = as(tenant.owner.token);
    const site = await owner.post('/sites', {
      name: 'Old',
      code: 'CHG-1',
      latitude: 10,
      longitude: 20,
      address: { city: 'Oslo' },
      metadata: { a: 1 },
    });
    const renamed = await owner.patch(`/sites/${site.body.id}`, { name: 'New', metadata: { b: 2 } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'New', code: 'CHG-1', latitude: 10, metadata: { b: 2 } });
    const cleared = await owner.patch(`/sites/${site.body.id}`, {
      code: null,
      latitude: null,
      longitude: null,
      address: null,
    });
    expect(cleared.body).toMatchObject({
      name: 'New',
      code: null,
      latitude: null,
      longitude: null,
      address: null,
    });
    const bad = await owner.patch(`/sites/${site.body.id}`, { longitude: 200, name: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(['longitude', 'name']);
  });

  it('moves a site, but never under itself or its own descendants (400 naming parentId)', async () => {
    const { tenant: tn, group, europe, office, asia } = await tree();
    const owner = as(tn.owner.token);
    for (const parentId of [office, europe]) {
      const res = await owner.patch(`/sites/${europe}`, { parentId });
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe('parentId');
    }
    const moved = await owner.patch(`/sites/${asia}`, { parentId: europe });
    expect(moved.body.parentId).toBe(europe);
    const root = await owner.patch(`/sites/${asia}`, { parentId: null });
    expect(root.status).toBe(200);
    expect(root.body.parentId).toBeNull();
    expect((await owner.patch(`/sites/${europe}`, { parentId: randomUUID() })).status).toBe(400);
    expect((await owner.get(`/sites?parentId=${group}`)).body.map((s: { id: string }) => s.id)).toEqual([
      europe,
    ]);
  });

  it('never lets concurrent moves or creations build a cycle or share a code', async () => {
    const { tenant: tn, paris, asia } = await tree();
    const owner = as(tn.owner.token);
    const moves = await Promise.all([
      owner.patch(`/sites/${paris}`, { parentId: asia }),
      owner.patch(`/sites/${asia}`, { parentId: paris }),
    ]);
    expect(moves.map((r) => r.status).sort()).toEqual([200, 400]);
    const creations = await Promise.all(
      [1, 2, 3].map((n) => owner.post('/sites', { name: `C${n}`, code: 'RACE' })),
    );
    expect(creations.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });

  it('lets managers edit and move within their subtree only', async () => {
    const { tenant: tn, europe, paris, office, group } = await tree();
    const manager = as(tn.manager.token);
    expect((await manager.patch(`/sites/${europe}`, { name: 'EU' })).status).toBe(200);
    expect((await manager.patch(`/sites/${office}`, { parentId: europe })).status).toBe(200);
    // Europe hangs under Group, which the manager does not manage: it cannot be moved.
    expect((await manager.patch(`/sites/${europe}`, { parentId: null })).status).toBe(403);
    expect((await manager.patch(`/sites/${paris}`, { parentId: null })).status).toBe(403);
    // Group itself is out of sight: 404.
    expect((await manager.patch(`/sites/${group}`, { name: 'x' })).status).toBe(404);
    for (const member of [tn.collector, tn.viewer]) {
      expect((await as(member.token).patch(`/sites/${paris}`, { name: 'x' })).status).toBe(403);
    }
  });

  it('is 404 for unknown, malformed and other organizations’ sites', async () => {
    const foreign = (await buildSite(t, { tenant: other })).id;
    for (const id of [foreign, randomUUID(), 'abc']) {
      expect((await as(tenant.owner.token).patch(`/sites/${id}`, { name: 'x' })).status).toBe(404);
    }
  });
});

describe('deleting sites', () => {
  it('deletes a leaf, and refuses a site with sub-sites (400)', async () => {
    const { tenant: tn, europe, office } = await tree();
    const owner = as(tn.owner.token);
    const refused = await owner.del(`/sites/${europe}`);
    expect(refused.status).toBe(400);
    expect(errorText(refused.body)).toMatch(/sub-site/);
    const done = await owner.del(`/sites/${office}`);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ success: true });
    expect((await owner.get(`/sites/${office}`)).status).toBe(404);
    expect((await owner.del(`/sites/${office}`)).status).toBe(404);
  });

  it('refuses a site that other records refer to (400 "has data")', async () => {
    const { tenant: tn, asia } = await tree();
    // Stands in for the tables of other modules, which reference sites without cascading.
    await t.database.system(async (tx) => {
      await sql`create table if not exists site_refs_for_test (
        organization_id uuid not null, site_id uuid not null,
        foreign key (organization_id, site_id) references sites (organization_id, id))`.execute(tx);
      await sql`insert into site_refs_for_test values (${tn.organizationId}, ${asia})`.execute(tx);
    });
    const res = await as(tn.owner.token).del(`/sites/${asia}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'BAD_REQUEST',
      message: 'Invalid input data',
      issues: [{ message: expect.stringMatching(/has data/) }],
    });
    expect((await as(tn.owner.token).get(`/sites/${asia}`)).status).toBe(200);
  });

  it('needs management of the parent: managers delete inside their subtree only', async () => {
    const { tenant: tn, europe, office, paris } = await tree();
    const manager = as(tn.manager.token);
    expect((await manager.del(`/sites/${office}`)).status).toBe(200);
    expect((await as(tn.viewer.token).del(`/sites/${paris}`)).status).toBe(403);
    expect((await as(tn.collector.token).del(`/sites/${paris}`)).status).toBe(403);
    expect((await manager.del(`/sites/${paris}`)).status).toBe(200);
    expect((await manager.del(`/sites/${europe}`)).status).toBe(403);
    expect((await as(tn.owner.token).del(`/sites/${europe}`)).status).toBe(200);
  });

  it('is 401 without a credential', async () => {
    expect((await client(t).delete(`/sites/${randomUUID()}`)).status).toBe(401);
    expect((await client(t).get('/sites')).status).toBe(401);
  });
});
