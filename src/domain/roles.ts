import type { Role } from '../db/schema/index.ts';
import type { Caller } from './caller.ts';

/** Every role, highest first (OWNER > MANAGER > COLLECTOR > VIEWER). */
export const ROLES: readonly Role[] = ['OWNER', 'MANAGER', 'COLLECTOR', 'VIEWER'];

const RANK: Record<Role, number> = { OWNER: 4, MANAGER: 3, COLLECTOR: 2, VIEWER: 1 };

/** True when `role` is `minimum` or above it. */
export function roleAtLeast(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}

/** The roles below `role`, lowest first (the ones a route for `role` refuses). */
export function rolesBelow(role: Role): Role[] {
  return [...ROLES].reverse().filter((r) => RANK[r] < RANK[role]);
}

export const isOwner = (caller: Caller) => caller.role === 'OWNER';
