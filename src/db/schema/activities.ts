import type { Generated } from 'kysely';
import type { CreatedAt, Json } from './identity.ts';

export interface ActivitiesTable {
  id: Generated<string>;
  organization_id: string;
  form_element_submission_id: string;
  element_id: string;
  activity_definition_id: string;
  form_site_id: string;
  site_id: string;
  year: number;
  period_unit: number;
  position: number;
  input: Json<Record<string, unknown>>;
  value: number;
  metadata: Json<Record<string, unknown>>;
  user_id: string;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  /** SHA-256 of the calcCode that calculated it (set by a trigger, 0027); null: not recorded. */
  calc_code_sha256: Generated<string | null>;
  /** The coefficients its calculation looked up (0027); null: not recorded. */
  coefficients: Generated<Json<unknown[]> | null>;
}

/** Where an activity is, kept after it is deleted (filled by a trigger, 0027). */
export interface ActivityPlacesTable {
  organization_id: string;
  activity_id: string;
  value_id: string;
  element_id: string;
  form_site_id: string;
  site_id: string;
  year: number;
  period_unit: number;
}

export type ActivityHistoryAction = 'CREATE' | 'UPDATE' | 'RECALCULATE' | 'DELETE';

export interface ActivityHistoryTable {
  id: Generated<string>;
  seq: Generated<number>;
  organization_id: string;
  activity_id: string;
  action: ActivityHistoryAction;
  user_id: string;
  at: CreatedAt;
  before: Json;
  after: Json;
}

export interface NoActivityMarkersTable {
  id: Generated<string>;
  organization_id: string;
  form_id: string;
  element_id: string;
  site_id: string;
  year: number;
  period_unit: number;
  created_by: string;
  created_at: CreatedAt;
}
