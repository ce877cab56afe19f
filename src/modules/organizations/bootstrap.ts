import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import { hashPassword, newApiKey, randomBase62, sha256Hex } from '../../lib/secrets.ts';
import { apiKeys } from '../apikeys/index.ts';
import { users } from '../users/index.ts';
import { countOrganizations, createOrganizationWithOwner } from './organizations.service.ts';

export const BOOTSTRAP_EMAIL = 'owner@example.com';

/** Creates an organization with an owner and an API key for that owner. */
export async function createOrganizationWithKey(
  database: Database,
  input: {
    organizationName: string;
    email: string;
    name: string;
    password: string | null;
    onlyIfEmpty?: boolean;
  },
) {
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return database.system(async (tx) => {
    if (input.onlyIfEmpty && (await countOrganizations(tx)) > 0) return null;
    const existing = await users.findByEmail(tx, input.email);
    // A password is given to a new owner, or to an existing user who had none; never replaced.
    const passwordSet = passwordHash !== null && !existing?.password_hash;
    const { organization, user } = await createOrganizationWithOwner(tx, {
      organizationName: input.organizationName,
      email: input.email,
      name: input.name,
      passwordHash,
      reuseExistingUser: true,
    });
    const apiKey = newApiKey();
    await apiKeys.create(tx, organization.id, {
      userId: user.id,
      name: 'Created at set-up',
      keyHash: sha256Hex(apiKey),
    });
    return { organization, user, apiKey, passwordSet };
  });
}

/**
 * On the first start against an empty database (and with sign-up off), creates an
 * organization and owner so that the person who started the service can call it at once.
 * Returns the text that tells them how, or null when nothing was created.
 */
export async function bootstrapIfEmpty(
  database: Database,
  config: Config,
): Promise<((baseUrl: string) => string) | null> {
  if (!config.bootstrap) return null;
  if (config.allowSignup) {
    const empty = await database.system(async (tx) => (await countOrganizations(tx)) === 0);
    if (!empty) return null;
    return (base) =>
      `\nSDCS is running on an empty database with sign-up enabled. Create your organization:\n` +
      `  curl -X POST ${base}/api/v1/auth/signup -H 'content-type: application/json' \\\n` +
      `    -d '{"organizationName":"My organization","name":"Me","email":"me@example.com","password":"a-long-password"}'\n\n`;
  }
  const password = randomBase62(16);
  const created = await createOrganizationWithKey(database, {
    organizationName: 'My organization',
    email: BOOTSTRAP_EMAIL,
    name: 'Owner',
    password,
    onlyIfEmpty: true,
  });
  if (!created) return null;
  return (base) =>
    [
      '',
      '================================================================================',
      ' SDCS started on an empty database and created a first organization for you.',
      ` Organization: ${created.organization.name} (${created.organization.id})`,
      ` Owner login:  ${BOOTSTRAP_EMAIL} / ${password}`,
      ` API key:      ${created.apiKey}`,
      ' Both are shown only now. Make your first authenticated call:',
      `   curl -H 'Authorization: Bearer ${created.apiKey}' ${base}/api/v1/me`,
      ` Web app:      ${base}/app (sign in with the owner login above)`,
      ` API documentation: ${base}/docs`,
      '================================================================================',
      '',
      '',
    ].join('\n');
}
