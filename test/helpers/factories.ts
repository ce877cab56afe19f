import { randomBytes } from 'node:crypto';
import type { Role } from '../../src/db/schema/index.ts';
import { newAccessToken, sha256Hex } from '../../src/lib/secrets.ts';
import { createOrganizationWithKey } from '../../src/modules/organizations/bootstrap.ts';
import type { TestContext } from './app.ts';

export interface Member {
  userId: string;
  email: string;
  role: Role;
  /** An access token of this member. */
  token: string;
}

export interface Tenant {
  organizationId: string;
  /** The owner's API key. */
  apiKey: string;
  owner: Member;
  manager: Member;
  collector: Member;
  viewer: Member;
}

const unique = () => randomBytes(5).toString('hex');

/** A new access token for a member (for calls that end the token they use, like logout). */
export async function issueToken(t: TestContext, organizationId: string, userId: string): Promise<string> {
  const token = newAccessToken();
  await t.database.system((tx) =>
    tx
      .insertInto('access_tokens')
      .values({
        organization_id: organizationId,
        user_id: userId,
        token_hash: sha256Hex(token),
        expires_at: new Date(Date.now() + 3_600_000),
      })
      .execute(),
  );
  return token;
}

/** Adds a user with `role` to an organization and gives them an access token. */
export async function addMember(
  t: TestContext,
  organizationId: string,
  role: Role,
  email = `${role.toLowerCase()}-${unique()}@example.com`,
): Promise<Member> {
  const userId = await t.database.system(async (tx) => {
    const user = await tx
      .insertInto('users')
      .values({ email, name: `${role} ${email}`, password_hash: null, image: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx
      .insertInto('memberships')
      .values({ organization_id: organizationId, user_id: user.id, role })
      .execute();
    return user.id;
  });
  return { userId, email, role, token: await issueToken(t, organizationId, userId) };
}

/** An organization with one member of each role; the owner also has an API key. */
export async function createTenant(t: TestContext, name = `Org ${unique()}`): Promise<Tenant> {
  const ownerEmail = `owner-${unique()}@example.com`;
  const created = await createOrganizationWithKey(t.database, {
    organizationName: name,
    email: ownerEmail,
    name: 'Owner',
    password: null,
  });
  if (!created) throw new Error('tenant not created');
  const organizationId = created.organization.id;
  const token = await issueToken(t, organizationId, created.user.id);
  return {
    organizationId,
    apiKey: created.apiKey,
    owner: { userId: created.user.id, email: ownerEmail, role: 'OWNER', token },
    manager: await addMember(t, organizationId, 'MANAGER'),
    collector: await addMember(t, organizationId, 'COLLECTOR'),
    viewer: await addMember(t, organizationId, 'VIEWER'),
  };
}

/** Stores a site directly (for tests of other modules); returns its id. */
export async function createSite(
  t: TestContext,
  organizationId: string,
  fields: {
    name?: string;
    parentId?: string | null;
    code?: string | null;
    metadata?: Record<string, unknown>;
  } = {},
): Promise<string> {
  const row = await t.database.tenant(organizationId, (tx) =>
    tx
      .insertInto('sites')
      .values({
        organization_id: organizationId,
        name: fields.name ?? `Site ${unique()}`,
        parent_id: fields.parentId ?? null,
        code: fields.code ?? null,
        metadata: JSON.stringify(fields.metadata ?? {}),
        address: JSON.stringify({}),
      })
      .returning('id')
      .executeTakeFirstOrThrow(),
  );
  return row.id;
}

/** Assigns sites to a member (each assignment includes the site's descendants). */
export async function assignSites(
  t: TestContext,
  organizationId: string,
  userId: string,
  siteIds: string[],
): Promise<void> {
  if (siteIds.length === 0) return;
  await t.database.tenant(organizationId, (tx) =>
    tx
      .insertInto('membership_sites')
      .values(
        siteIds.map((siteId) => ({ organization_id: organizationId, user_id: userId, site_id: siteId })),
      )
      .execute(),
  );
}
