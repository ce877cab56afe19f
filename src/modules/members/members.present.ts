import { iso } from '../../domain/time.ts';
import type { membersRepository as repo } from './members.repository.ts';

export type MemberRow = Awaited<ReturnType<typeof repo.list>>[number];

export function presentMember(row: MemberRow) {
  return {
    userId: row.user_id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    siteIds: row.site_ids ?? [],
    createdAt: iso(row.created_at),
    invitationExpiresAt: iso(row.invitation_expires_at),
  };
}
