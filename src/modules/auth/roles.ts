import type { Role } from '../../db/schema/index.ts';
import type { Caller } from '../../http/auth.ts';

export const ROLES: readonly Role[] = ['OWNER', 'MANAGER', 'COLLECTOR', 'VIEWER'];

const RANK: Record<Role, number> = { OWNER: 4, MANAGER: 3, COLLECTOR: 2, VIEWER: 1 };

/** True when `role` is `minimum` or above it (OWNER > MANAGER > COLLECTOR > VIEWER). */
export function roleAtLeast(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}

export const isOwner = (caller: Caller) => caller.role === 'OWNER';
