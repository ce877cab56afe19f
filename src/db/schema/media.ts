import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, NullableTimestamp } from './identity.ts';

export type MediaStatus = 'pending' | 'uploaded';

/** bigint columns: written as numbers, read as string (pg) or number (PGlite); see `toNumber`. */
type BigIntColumn = ColumnType<string | number, number, number>;

export interface MediaTable {
  id: ColumnType<string, string | undefined, never>;
  organization_id: string;
  key: string;
  file_name: string;
  content_type: string;
  declared_size: BigIntColumn;
  size: ColumnType<string | number | null, number | null | undefined, number | null>;
  sha256: string | null;
  status: Generated<MediaStatus>;
  entity_type: string | null;
  entity_id: string;
  field_name: string;
  uploaded_by: string | null;
  created_at: CreatedAt;
  uploaded_at: NullableTimestamp;
  updated_at: CreatedAt;
  /** A pending upload reserves its declared size against the quota until then (its URL's expiry). */
  reserved_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
}
