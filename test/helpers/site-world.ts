import type { TestContext } from './app.ts';
import { buildSite, buildTenant } from './builders.ts';
import type { Tenant } from './factories.ts';

/**
 * The world of the site tests: a small tree in a fresh organization, Group > Europe > Paris (code
 * PAR) > Paris office, and Group > Asia; the manager, collector and viewer are assigned to Europe
 * (so they reach Europe, Paris and Paris office).
 */
export interface SiteWorld {
  tenant: Tenant;
  group: string;
  europe: string;
  paris: string;
  office: string;
  asia: string;
}

export async function createSiteWorld(t: TestContext): Promise<SiteWorld> {
  const tenant = await buildTenant(t);
  const group = await buildSite(t, { tenant, name: 'Group' });
  const europe = await buildSite(t, {
    parent: group,
    name: 'Europe',
    assign: ['manager', 'collector', 'viewer'],
  });
  const paris = await buildSite(t, { parent: europe, name: 'Paris', code: 'PAR' });
  const office = await buildSite(t, { parent: paris, name: 'Paris office' });
  const asia = await buildSite(t, { parent: group, name: 'Asia' });
  return { tenant, group: group.id, europe: europe.id, paris: paris.id, office: office.id, asia: asia.id };
}
