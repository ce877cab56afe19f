import type { Role } from '../../src/db/schema/index.ts';
import type { ApiResponse, TestContext } from '../helpers/app.ts';
import type { Member, Tenant } from '../helpers/factories.ts';
import type { Plants } from './plants.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One route in the security matrix. Who may call it is not stated here: the test reads the
 * route's own declaration from the OpenAPI document (`x-min-role`, or `security: []` when public). Every route of the API has a case (a test fails
 * otherwise); each module keeps its cases in `test/security/cases/<module>.ts`.
 */
export interface SecurityCase {
  method: Method;
  /** The route as registered, relative to /api/v1, e.g. `/apikeys/:id`. */
  route: string;
  /** The status of a successful call by the route's lowest allowed role (default 200). */
  successStatus?: number;
  /**
   * Makes what one call needs inside `tenant` (records named by the path, a valid body) and
   * returns the concrete url and body. Called afresh for every call.
   */
  prepare: (
    t: TestContext,
    tenant: Tenant,
  ) => Promise<{ url: string; body?: unknown; headers?: Record<string, string> }>;
  /** The call ends the token it uses (logout): each call gets a fresh token. */
  consumesToken?: boolean;
  /** The path names a record: with another tenant's record the answer must be 404. */
  tenantRecord?: boolean;
}

export function memberOf(tenant: Tenant, role: Role) {
  return { OWNER: tenant.owner, MANAGER: tenant.manager, COLLECTOR: tenant.collector, VIEWER: tenant.viewer }[
    role
  ];
}

/**
 * One site-limit check: a member of each role, where all but the owner are limited to Plant 1
 * (see `plants.ts`), calls a route about a record placed on a plant (or on none). Every
 * non-public route must also hold site limits; these cases state it for the routes whose
 * records lie on sites in ways a role check cannot see (files, recalculations, definitions).
 */
export interface SiteCase {
  method: Method;
  /** The route as registered, as in `SecurityCase`. */
  route: string;
  /** Where the record lies, in words (`a file attached on the other site`). */
  place: string;
  /** Makes the record for one call by `caller`; answers the url and body. */
  prepare: (
    t: TestContext,
    plants: Plants,
    caller: Member,
  ) => Promise<{ url: string; body?: unknown; after?: (res: ApiResponse) => Promise<void> | void }>;
  /** The status each role gets; roles below the route's role get its 403 and need not be listed. */
  expect: Partial<Record<Role, number>>;
}
