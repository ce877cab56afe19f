import { sql } from 'kysely';
import type { TestContext } from '../../helpers/app.ts';
import { createActivityDefinition, type Tenant } from '../../helpers/factories.ts';
import type { SecurityCase, SiteCase } from '../matrix.ts';
import { activitiesOnBothPlants } from '../plants.ts';

const body = (name = 'Matrix definition', calcCode = 'return inputs.amount * 2') => ({
  name,
  uiCode: '',
  calcCode,
  inputs: [{ name: 'amount', type: 'number', required: true }],
});

/**
 * Definitions are organization-wide configuration: changing one is for owners and managers of
 * every site. The tenant's manager is made one (assigned every top-level site the tenant has by
 * then) before each write, so that the 403s below MANAGER come from the role alone.
 */
export async function managerOfEverySite(t: TestContext, tenant: Tenant): Promise<void> {
  await t.database.tenant(tenant.organizationId, (tx) =>
    sql`insert into membership_sites (organization_id, user_id, site_id)
        select organization_id, ${tenant.manager.userId}::uuid, id from sites
         where organization_id = ${tenant.organizationId} and parent_id is null
        on conflict do nothing`.execute(tx),
  );
}

/**
 * The same prepare, with the tenant's manager first made a manager of every site: for the other
 * organization-wide definitions (forms, indicators, targets, source adapters, decision 166).
 */
export const asManagerOfEverySite =
  (prepare: SecurityCase['prepare']): SecurityCase['prepare'] =>
  async (t, tenant) => {
    await managerOfEverySite(t, tenant);
    return prepare(t, tenant);
  };

export const cases: SecurityCase[] = [
  {
    method: 'GET',
    route: '/activity-definitions',
    prepare: async () => ({ url: '/activity-definitions' }),
  },
  {
    method: 'POST',
    route: '/activity-definitions',
    prepare: async (t, tenant) => {
      await managerOfEverySite(t, tenant);
      return { url: '/activity-definitions', body: body() };
    },
  },
  {
    method: 'GET',
    route: '/activity-definitions/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/activity-definitions/${await createActivityDefinition(t, tenant.organizationId)}`,
    }),
  },
  {
    method: 'PUT',
    route: '/activity-definitions/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => {
      await managerOfEverySite(t, tenant);
      return {
        url: `/activity-definitions/${await createActivityDefinition(t, tenant.organizationId)}`,
        body: body('Renamed'),
      };
    },
  },
  {
    method: 'DELETE',
    route: '/activity-definitions/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => {
      await managerOfEverySite(t, tenant);
      return { url: `/activity-definitions/${await createActivityDefinition(t, tenant.organizationId)}` };
    },
  },
];

/** A limited manager is refused whatever the definition; the owner (and roles below: by role) as usual. */
const WRITES = { VIEWER: 403, COLLECTOR: 403, MANAGER: 403, OWNER: 200 };

export const siteCases: SiteCase[] = [
  {
    method: 'PUT',
    route: '/activity-definitions/:id',
    place: 'a definition used on both sites',
    expect: WRITES,
    prepare: async (t, plants, caller) => {
      const { definitionId, values } = await activitiesOnBothPlants(t, plants);
      return {
        url: `/activity-definitions/${definitionId}`,
        body: body('Travel', 'return 1000'),
        after: async () => {
          // Stored figures stay as calculated (amount 1 and 3, × 2) until someone recalculates.
          const now = await values();
          if (now.plant1 !== 2 || now.plant2 !== 6)
            throw new Error(`figures changed: ${JSON.stringify(now)}`);
          if (caller.role === 'OWNER') return;
          const stored = await t.database.system((tx) =>
            tx
              .selectFrom('activity_definitions')
              .select('calc_code')
              .where('id', '=', definitionId)
              .executeTakeFirstOrThrow(),
          );
          if (stored.calc_code !== 'return inputs.amount * 2') throw new Error('the definition changed');
        },
      };
    },
  },
  {
    method: 'POST',
    route: '/activity-definitions',
    place: 'a new definition (for every site)',
    expect: WRITES,
    prepare: async () => ({ url: '/activity-definitions', body: body('New for all sites') }),
  },
  {
    method: 'DELETE',
    route: '/activity-definitions/:id',
    place: 'a definition nothing uses',
    expect: WRITES,
    prepare: async (t, plants) => ({
      url: `/activity-definitions/${await createActivityDefinition(t, plants.tenant.organizationId)}`,
    }),
  },
];
