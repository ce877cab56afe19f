import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  addMember,
  createActivityDefinition,
  createTenant,
  type Member,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { createCalcRunner, shutdownSandbox } from '../../sandbox/index.ts';
import { getDefinitionForCalculation } from './activity-definitions.service.ts';

/** Common definitions: shared by a platform admin, visible to all, writable only by their owner. */
const t = useTestApp();
let tenant: Tenant;
let other: Tenant;
let admin: Member;

const SITE_ID = '00000000-0000-4000-8000-000000000001';

const validBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Fuel combustion',
  uiCode: '',
  calcCode:
    "return { value: inputs.litres * (inputs.fuel === 'diesel' ? 2.68 : 2.31), metadata: { fuel: inputs.fuel } }",
  inputs: [
    { name: 'litres', type: 'number', required: true },
    { name: 'fuel', type: 'string' },
  ],
  metadataSchema: { type: 'object', properties: { fuel: { type: 'string' } } },
  ...overrides,
});

const post = (body: unknown, token = tenant.manager.token) =>
  api(t, 'POST', '/activity-definitions', { token, body });
const put = (id: string, body: unknown, token = tenant.manager.token) =>
  api(t, 'PUT', `/activity-definitions/${id}`, { token, body });
const get = (id: string, token = tenant.viewer.token) =>
  api(t, 'GET', `/activity-definitions/${id}`, { token });
const del = (id: string, token = tenant.manager.token) =>
  api(t, 'DELETE', `/activity-definitions/${id}`, { token });

beforeAll(async () => {
  tenant = await createTenant(t);
  other = await createTenant(t);
  admin = await addMember(t, tenant.organizationId, 'MANAGER', 'admin@platform.test');
});

afterAll(() => shutdownSandbox());

describe('common definitions', () => {
  let common: { id: string; key: string };
  let privateOne: { id: string };

  beforeAll(async () => {
    common = (await post(validBody({ name: 'Shared fuel', isCommon: true }), admin.token)).body;
    privateOne = (await post(validBody({ name: 'Private fuel' }))).body;
  });

  it('are listed and readable in every organization; private ones are not', async () => {
    const list = await api(t, 'GET', '/activity-definitions', { token: other.viewer.token });
    expect(list.status).toBe(200);
    const ids = list.body.map((d: { id: string }) => d.id);
    expect(ids).toContain(common.id);
    expect(ids).not.toContain(privateOne.id);

    expect((await get(common.id, other.viewer.token)).body).toMatchObject({
      id: common.id,
      organizationId: tenant.organizationId,
      isCommon: true,
    });
    expect((await get(privateOne.id, other.viewer.token)).status).toBe(404);
  });

  it('are read-only for other organizations (403), while private ones are not found (404)', async () => {
    expect((await put(common.id, validBody(), other.owner.token)).status).toBe(403);
    expect((await del(common.id, other.owner.token)).status).toBe(403);
    expect((await put(privateOne.id, validBody(), other.owner.token)).status).toBe(404);
    expect((await del(privateOne.id, other.owner.token)).status).toBe(404);
  });

  it('can be edited by the owning organization’s managers, but only an admin may unshare', async () => {
    const edited = await put(common.id, validBody({ name: 'Shared fuel v2' }));
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: 'Shared fuel v2', isCommon: true });

    expect((await put(common.id, validBody({ isCommon: false }))).status).toBe(403);
    const unshared = await put(common.id, validBody({ isCommon: false }), admin.token);
    expect(unshared.body.isCommon).toBe(false);
    expect((await get(common.id, other.viewer.token)).status).toBe(404);
  });
});

describe('getDefinitionForCalculation', () => {
  it('finds the organization’s own and common definitions, nothing else', async () => {
    const own = await createActivityDefinition(t, tenant.organizationId);
    const shared = await createActivityDefinition(t, other.organizationId, { isCommon: true });
    const hidden = await createActivityDefinition(t, other.organizationId);
    const find = (id: string) =>
      t.database.tenant(tenant.organizationId, (tx) =>
        getDefinitionForCalculation(tx, tenant.organizationId, id),
      );

    expect((await find(own))?.id).toBe(own);
    expect((await find(shared))?.isCommon).toBe(true);
    expect(await find(hidden)).toBeUndefined();
    expect(await find('not-a-uuid')).toBeUndefined();
  });

  it('gives what a calculation runner needs', async () => {
    const created = (await post(validBody({ name: 'Generators' }))).body;
    const definition = await t.database.tenant(tenant.organizationId, (tx) =>
      getDefinitionForCalculation(tx, tenant.organizationId, created.id),
    );
    const runner = await createCalcRunner(definition!);
    const result = await runner.calculate(
      { litres: 10, fuel: 'diesel' },
      { year: 2025, periodUnit: 1, site: { id: SITE_ID, name: 'Site', metadata: {} } },
    );
    runner.dispose();
    expect(result.value).toBeCloseTo(26.8);
    expect(result.metadata).toEqual({ fuel: 'diesel' });
  });
});

describe('row-level security', () => {
  it('shows another organization only common rows, and lets it write only its own', async () => {
    const hidden = await createActivityDefinition(t, tenant.organizationId);
    const shared = await createActivityDefinition(t, tenant.organizationId, { isCommon: true });
    const seen = await t.database.tenant(other.organizationId, (tx) =>
      tx.selectFrom('activity_definitions').select('id').where('id', 'in', [hidden, shared]).execute(),
    );
    expect(seen.map((r) => r.id)).toEqual([shared]);

    const changed = await t.database.tenant(other.organizationId, (tx) =>
      sql`update activity_definitions set name = 'taken over' where id = ${shared}`.execute(tx),
    );
    expect(Number(changed.numAffectedRows)).toBe(0);
    await expect(
      t.database.tenant(other.organizationId, (tx) =>
        sql`insert into activity_definitions (organization_id, key, name, ui_code, calc_code)
            values (${tenant.organizationId}, 'sneaky', 'x', '', 'return 1')`.execute(tx),
      ),
    ).rejects.toThrow();
  });
});
