import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Json } from './identity.ts';

export type Aggregation = 'SUM' | 'LAST' | 'AVERAGE';

export interface IndicatorsTable {
  id: Generated<string>;
  organization_id: string;
  name: string;
  label: string | null;
  description: string | null;
  unit_id: string | null;
  display_unit_id: string | null;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  expression_parts: Json;
  preferred_dataset_item_name: string | null;
  preferred_dataset_item_dataset_id: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface TargetsTable {
  id: Generated<string>;
  organization_id: string;
  indicator_id: string;
  title: string;
  baseline_year: number | null;
  baseline_month: number | null;
  baseline_quarter: number | null;
  metadata: Json<Record<string, unknown>>;
  target_entries: Json;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}
