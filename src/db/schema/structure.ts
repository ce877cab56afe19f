import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Json } from './identity.ts';

export interface SiteAddress {
  line1?: string;
  line2?: string;
  city?: string;
  postalCode?: string;
  region?: string;
  country?: string;
}

export interface SitesTable {
  id: Generated<string>;
  organization_id: string;
  parent_id: string | null;
  name: string;
  code: string | null;
  latitude: number | null;
  longitude: number | null;
  address: ColumnType<SiteAddress, unknown, unknown>;
  metadata: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface MembershipSitesTable {
  organization_id: string;
  user_id: string;
  site_id: string;
}

export interface UnitsTable {
  id: Generated<string>;
  /** null for the shared catalog */
  organization_id: string | null;
  symbol: string;
  name: string;
  dimension: string;
  factor_to_base: number;
  created_at: CreatedAt;
}
