import { iso } from '../../domain/time.ts';
import type { organizationsRepository as repo } from './organizations.repository.ts';

export type OrganizationRow = NonNullable<Awaited<ReturnType<typeof repo.get>>>;

export function presentOrganization(row: OrganizationRow) {
  return {
    id: row.id,
    name: row.name,
    defaultStatuses: row.default_statuses,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
