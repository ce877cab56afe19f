import type {
  AccessTokensTable,
  ApiKeysTable,
  MembershipsTable,
  OrganizationsTable,
  UsersTable,
} from './identity.ts';
import type { MembershipSitesTable, SitesTable, UnitsTable } from './structure.ts';

export type * from './identity.ts';
export type * from './structure.ts';

/** Every table the query builder knows, by SQL name. Each module adds its tables here. */
export interface DB {
  organizations: OrganizationsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  access_tokens: AccessTokensTable;
  api_keys: ApiKeysTable;
  sites: SitesTable;
  membership_sites: MembershipSitesTable;
  units: UnitsTable;
}
