import type { Generated } from 'kysely';
import type { CreatedAt, NullableTimestamp, Timestamp } from './identity.ts';

export interface InvitationsTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  email: string;
  token_hash: string;
  invited_by: string | null;
  expires_at: Timestamp;
  accepted_at: NullableTimestamp;
  created_at: CreatedAt;
}
