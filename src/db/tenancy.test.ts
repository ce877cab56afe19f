import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers/app.ts';
import { createTenant } from '../../test/helpers/factories.ts';

const t = useTestApp();

describe('tenant isolation in the database', () => {
  it('a query without a tenant filter still sees only its own organization’s rows', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const seen = await t.database.tenant(a.organizationId, async (tx) => {
      const keys = await sql<{ organization_id: string }>`select organization_id from api_keys`.execute(tx);
      const members = await tx.selectFrom('memberships').select('organization_id').execute();
      const orgs = await tx.selectFrom('organizations').select('id').execute();
      return { keys: keys.rows, members, orgs };
    });
    expect(seen.keys.length).toBeGreaterThan(0);
    expect(new Set(seen.keys.map((r) => r.organization_id))).toEqual(new Set([a.organizationId]));
    expect(new Set(seen.members.map((r) => r.organization_id))).toEqual(new Set([a.organizationId]));
    expect(seen.orgs).toEqual([{ id: a.organizationId }]);
    // b's rows exist: the system scope sees them.
    const all = await t.database.system((tx) =>
      tx
        .selectFrom('api_keys')
        .select('organization_id')
        .where('organization_id', '=', b.organizationId)
        .execute(),
    );
    expect(all.length).toBeGreaterThan(0);
  });

  it('a write into another organization is refused by the database', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    await expect(
      t.database.tenant(a.organizationId, (tx) =>
        tx
          .insertInto('api_keys')
          .values({
            organization_id: b.organizationId,
            user_id: b.owner.userId,
            name: 'x',
            key_hash: 'h'.repeat(64),
          })
          .execute(),
      ),
    ).rejects.toThrow(/row-level security/);
    const updated = await t.database.tenant(a.organizationId, (tx) =>
      tx
        .updateTable('api_keys')
        .set({ name: 'stolen' })
        .where('organization_id', '=', b.organizationId)
        .execute(),
    );
    expect(Number(updated[0]?.numUpdatedRows ?? 0)).toBe(0);
  });

  it('the tenant setting does not outlive its transaction', async () => {
    const a = await createTenant(t);
    await t.database.tenant(a.organizationId, async () => undefined);
    const after = await t.database.system((tx) =>
      sql<{
        org: string | null;
        role: string;
      }>`select sdcs_current_org() as org, current_user as role`.execute(tx),
    );
    expect(after.rows[0]?.org).toBeNull();
    expect(after.rows[0]?.role).not.toBe('sdcs_app');
  });

  it('concurrent transactions keep their own organization and do not interleave', async () => {
    const tenants = await Promise.all([createTenant(t), createTenant(t), createTenant(t)]);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => {
        const tenant = tenants[i % tenants.length]!;
        return t.database.tenant(tenant.organizationId, async (tx) => {
          await new Promise((r) => setTimeout(r, Math.random() * 5));
          const row = await sql<{ org: string }>`select sdcs_current_org()::text as org`.execute(tx);
          await new Promise((r) => setTimeout(r, Math.random() * 5));
          const orgs = await tx.selectFrom('organizations').select('id').execute();
          return { expected: tenant.organizationId, setting: row.rows[0]?.org, orgs: orgs.map((o) => o.id) };
        });
      }),
    );
    for (const r of results) {
      expect(r.setting).toBe(r.expected);
      expect(r.orgs).toEqual([r.expected]);
    }
  });

  it('a failed transaction leaves nothing behind', async () => {
    const a = await createTenant(t);
    await expect(
      t.database.tenant(a.organizationId, async (tx) => {
        await tx
          .insertInto('api_keys')
          .values({
            organization_id: a.organizationId,
            user_id: a.owner.userId,
            name: 'ghost',
            key_hash: 'g'.repeat(64),
          })
          .execute();
        throw new Error('later step failed');
      }),
    ).rejects.toThrow('later step failed');
    const ghost = await t.database.system((tx) =>
      tx.selectFrom('api_keys').select('id').where('name', '=', 'ghost').execute(),
    );
    expect(ghost).toEqual([]);
  });
});
