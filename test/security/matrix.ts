import type { Role } from '../../src/db/schema/index.ts';
import type { TestContext } from '../helpers/app.ts';
import type { Tenant } from '../helpers/factories.ts';

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
