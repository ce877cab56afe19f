import type { Tx } from '../../db/client.ts';
import type { ValueStatus } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { conflict, invalidField, notFound } from '../../domain/errors.ts';
import { users } from '../users/index.ts';
import { presentOrganization } from './organizations.present.ts';
import { organizationsRepository as repo } from './organizations.repository.ts';

export interface NewOrganization {
  organizationName: string;
  email: string;
  name: string;
  /** argon2id hash, or null for an owner who signs in with API keys only. */
  passwordHash: string | null;
  /** Sign-up refuses a known e-mail; the CLI adds the existing user as owner instead. */
  reuseExistingUser: boolean;
}

/** Creates an organization and its first owner (system transaction: no tenant yet). */
export async function createOrganizationWithOwner(tx: Tx, input: NewOrganization) {
  const organization = await repo.insert(tx, input.organizationName);
  let user = await users.findByEmail(tx, input.email);
  if (user && !input.reuseExistingUser) throw conflict('An account with this e-mail address already exists');
  if (!user) {
    user = await users.create(tx, input);
  } else if (input.passwordHash && !user.password_hash) {
    await users.setPasswordHash(tx, user.id, input.passwordHash);
  }
  await repo.addOwner(tx, organization.id, user.id);
  return { organization, user };
}

export const countOrganizations = (tx: Tx) => repo.count(tx);

/** The caller's organization. */
export async function getOrganization(tx: Tx, caller: Caller) {
  const row = await repo.get(tx, caller.organizationId);
  if (!row) throw notFound('Organization');
  return presentOrganization(row);
}

/** Renames the organization and/or sets its default statuses; fields left out stay as they are. */
export async function updateOrganization(
  tx: Tx,
  caller: Caller,
  input: { name?: string; defaultStatuses?: ValueStatus[] },
) {
  const name = input.name?.trim();
  if (name === '') throw invalidField('name', 'name must not be blank');
  const row = await repo.update(tx, caller.organizationId, { name, defaultStatuses: input.defaultStatuses });
  if (!row) throw notFound('Organization');
  return presentOrganization(row);
}
