import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Json } from './identity.ts';

export interface DatasetsTable {
  id: Generated<string>;
  /** Null for the built-in factor library (always common, read-only). */
  organization_id: string | null;
  name: string;
  description: string | null;
  /** Where the coefficients come from (a publisher, a report), free text. */
  data_source: string | null;
  /** The edition of that source (`2025`, `v2.1`), free text. */
  version: string | null;
  /** Readable by every organization; changed only by platform admins of the owning one. */
  is_common: Generated<boolean>;
  /** Under which licence the figures may be used (the library's datasets). */
  licence: string | null;
  /** Where to read the source. */
  link: string | null;
  /** The library dataset that replaces this one, once a newer version is loaded. */
  superseded_by: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface DatasetItemsTable {
  id: Generated<string>;
  /** Null for the built-in factor library's items. */
  organization_id: string | null;
  dataset_id: string;
  /** The label. */
  name: string;
  key: string;
  value: number;
  /** Symbol of the unit the coefficient yields (e.g. kgCO2e), or null. */
  unit: string | null;
  year: number;
  description: string | null;
  link: string | null;
  metadata: Json<Record<string, unknown>>;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  /** The unit the coefficient applies per (kWh in kgCO2e per kWh). */
  input_unit_id: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export type DatasetItemAction = 'create' | 'update' | 'delete';
export type DatasetItemChangeSource = 'api' | 'import' | 'dataset-delete';

export interface DatasetItemHistoryTable {
  id: Generated<string>;
  seq: Generated<number>;
  organization_id: string;
  dataset_id: string;
  item_id: string;
  action: DatasetItemAction;
  source: DatasetItemChangeSource;
  user_id: string | null;
  before: Json<Record<string, unknown> | null>;
  after: Json<Record<string, unknown> | null>;
  changed_at: CreatedAt;
}
