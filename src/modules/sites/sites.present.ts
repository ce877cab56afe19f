import { iso } from '../../domain/time.ts';
import type { SiteRow } from './sites.repository.ts';
import type { SiteOut } from './sites.schemas.ts';

/** The API shape of a stored site. */
export function presentSite(row: SiteRow): SiteOut {
  const address = row.address ?? {};
  return {
    id: row.id,
    name: row.name,
    code: row.code,
    parentId: row.parent_id,
    latitude: row.latitude,
    longitude: row.longitude,
    address: Object.keys(address).length > 0 ? address : null,
    metadata: row.metadata ?? {},
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
