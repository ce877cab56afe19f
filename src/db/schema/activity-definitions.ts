import type { Generated } from 'kysely';
import type { CreatedAt, Json } from './identity.ts';

/** The kinds of value an activity input holds. */
export type ActivityInputType = 'string' | 'number' | 'boolean' | 'date';

/** One input field of an activity definition, as stored (defaults filled in). */
export interface ActivityInputDefinition {
  name: string;
  type: ActivityInputType;
  required: boolean;
  exportName: string;
  example?: string;
  editor?: { type: 'select'; options: { label: string; value: string }[] };
}

export interface ActivityDefinitionsTable {
  id: Generated<string>;
  organization_id: string;
  key: string;
  name: string;
  description: string | null;
  ui_code: string;
  calc_code: string;
  inputs: Json<ActivityInputDefinition[]>;
  metadata_schema: Json<Record<string, unknown> | null>;
  /** The unit calcCode returns (null: none). */
  unit_id: string | null;
  is_common: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

/** Every calcCode a definition has had, by SHA-256 (kept by a trigger, 0054; read-only to the app). */
export interface ActivityCalcCodeVersionsTable {
  organization_id: string;
  definition_id: string;
  sha256: string;
  calc_code: string;
  is_common: boolean;
  first_seen_at: CreatedAt;
}
