import type { Tx } from '../../db/client.ts';
import type { Role } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, badRequest, type Issue, invalidField, notFound } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { coversOrganization, siteScope } from '../access/index.ts';
import { sites } from '../sites/index.ts';
import { memberPolicy, parseRole } from './members.policy.ts';
import { presentMember } from './members.present.ts';
import { membersRepository as repo } from './members.repository.ts';

const ROLE_HELP = 'must be one of Owner, Manager, Collector, Viewer (any letter case)';

/** A role from a request field, or a 400 naming the field. */
export function requireRole(value: string, field: string): Role {
  const role = parseRole(value);
  if (!role) throw invalidField(field, `${field} ${ROLE_HELP}`);
  return role;
}

/** Site ids from a request field, deduplicated; a 400 names each one that is not a site of the organization. */
export async function requireSites(tx: Tx, organizationId: string, ids: string[], field: string) {
  const unique = [...new Set(ids)];
  const known = await sites.existing(tx, organizationId, unique.filter(isUuid));
  const issues: Issue[] = [];
  ids.forEach((id, index) => {
    if (!known.has(id))
      issues.push({
        path: `${field}.${index}`,
        message: `${field}.${index} is not a site of this organization`,
      });
  });
  if (issues.length > 0) throw badRequest('Unknown site', issues);
  return unique;
}

export const grantMessage = (role: Role) =>
  role === 'OWNER'
    ? 'Only owners can grant the OWNER role'
    : 'Managers can give the MANAGER, COLLECTOR or VIEWER role';

const MANAGE_MESSAGE = 'Managers can only manage collectors and viewers';
export const MEMBER_SITES_MESSAGE =
  'You manage only some sites: you can change or remove only members who have sites, all of them yours; members without a site are managed by owners and managers of every site';

/**
 * Refuses (403) a manager limited to some sites who would manage a member outside them, or a
 * member of no site (decision 168). Owners pass.
 */
export async function authorizeMemberSites(tx: Tx, caller: Caller, memberSites: readonly string[]) {
  if (caller.role === 'OWNER') return;
  const scope = await siteScope(tx, caller);
  const whole = await coversOrganization(tx, caller, scope);
  authorize(memberPolicy.canManageMemberSites(scope, whole, memberSites), MEMBER_SITES_MESSAGE);
}
const SITES_MESSAGE = 'You can only assign sites you manage';

/** Refuses (400) to leave the organization without an active owner once `userId` stops being one. */
async function keepAnotherOwner(tx: Tx, organizationId: string, userId: string): Promise<void> {
  const owners = await repo.activeOwners(tx, organizationId);
  if (!owners.some((id) => id !== userId)) {
    throw badRequest('The organization needs at least one owner: make another member owner first');
  }
}

async function lockMember(tx: Tx, caller: Caller, userId: string) {
  if (!isUuid(userId)) throw notFound('Member');
  await repo.lockMemberships(tx, caller.organizationId);
  const member = await repo.lock(tx, caller.organizationId, userId);
  if (!member) throw notFound('Member');
  authorize(memberPolicy.canManageMember(caller, member.role), MANAGE_MESSAGE);
  return member;
}

export async function listMembers(tx: Tx, caller: Caller) {
  return (await repo.list(tx, caller.organizationId)).map(presentMember);
}

/** Changes a member's role and/or site assignments (the list given replaces the current one). */
export async function updateMember(
  tx: Tx,
  caller: Caller,
  userId: string,
  input: { role?: string; siteIds?: string[] },
) {
  const org = caller.organizationId;
  const member = await lockMember(tx, caller, userId);
  const role = input.role === undefined ? undefined : requireRole(input.role, 'role');
  const siteIds =
    input.siteIds === undefined ? undefined : await requireSites(tx, org, input.siteIds, 'siteIds');
  if (role) authorize(memberPolicy.canGrantRole(caller, role), grantMessage(role));
  const current = await repo.siteIdsOf(tx, org, userId);
  // As for removal: a limited manager changes the role only of members who have sites, all theirs.
  if (role && role !== member.role) await authorizeMemberSites(tx, caller, current);
  if (siteIds) {
    // Sites are changed one by one (each added or taken away must be the caller's), but a member
    // of no site is placed by owners and managers of every site (decision 168).
    if (current.length === 0) await authorizeMemberSites(tx, caller, current);
    const changed = [
      ...siteIds.filter((id) => !current.includes(id)),
      ...current.filter((id) => !siteIds.includes(id)),
    ];
    authorize(memberPolicy.canAssignSites(await siteScope(tx, caller), changed), SITES_MESSAGE);
  }
  if (role && role !== member.role) {
    if (member.role === 'OWNER' && member.status === 'active') await keepAnotherOwner(tx, org, userId);
    await repo.setRole(tx, org, userId, role);
  }
  if (siteIds) await repo.replaceSites(tx, org, userId, siteIds);
  const [row] = await repo.list(tx, org, userId);
  return presentMember(row!);
}

/** Removes a member (or cancels a pending invitation) and revokes their tokens and API keys. */
export async function removeMember(tx: Tx, caller: Caller, userId: string): Promise<void> {
  const org = caller.organizationId;
  const member = await lockMember(tx, caller, userId);
  await authorizeMemberSites(tx, caller, await repo.siteIdsOf(tx, org, userId));
  if (member.role === 'OWNER' && member.status === 'active') await keepAnotherOwner(tx, org, userId);
  await repo.remove(tx, org, userId);
}
