import type { Generated } from 'kysely';
import type { CreatedAt, NullableTimestamp } from './identity.ts';

export interface FormLocksTable {
  id: Generated<string>;
  organization_id: string;
  form_id: string;
  year: number;
  period_unit: number | null;
  site_id: string | null;
  created_by: string;
  created_at: CreatedAt;
  unlocked_by: string | null;
  unlocked_at: NullableTimestamp;
}

export interface CompletenessRemindersTable {
  id: Generated<string>;
  organization_id: string;
  form_id: string;
  year: number;
  period_unit: number;
  site_id: string;
  user_id: string;
  sent_by: string;
  sent_at: Date;
}
