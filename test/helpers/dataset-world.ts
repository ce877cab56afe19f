import { type Client, client, type TestContext } from './app.ts';
import { buildTenant, catalogUnits } from './builders.ts';
import { addMember, type Member, type Tenant } from './factories.ts';

/**
 * The world of the dataset tests: an organization, another one, and the platform's organization
 * whose second owner is a platform admin (the test configuration's SDCS_ADMIN_EMAILS).
 */
export interface DatasetWorld {
  tenant: Tenant;
  other: Tenant;
  platform: Tenant;
  /** A platform admin, owner of `platform`. */
  admin: Member;
  /** Catalog unit ids by symbol. */
  units: Record<string, string>;
  /** The API with typed answers. */
  api: Client;
}

export async function createDatasetWorld(t: TestContext): Promise<DatasetWorld> {
  const tenant = await buildTenant(t);
  const other = await buildTenant(t);
  const platform = await buildTenant(t);
  const admin = await addMember(t, platform.organizationId, 'OWNER', 'admin@platform.test');
  return { tenant, other, platform, admin, units: await catalogUnits(t), api: client(t) };
}
