import { CompiledQuery, sql } from 'kysely';
import { literal, type Queryable, type Tx, tenantSettings } from '../../db/client.ts';
import type { Role } from '../../db/schema/index.ts';

/** Identity queries that run before an organization is known (system transactions). */

export interface CredentialRow {
  id: string;
  organization_id: string;
  user_id: string;
  role: Role;
  email: string;
  name: string;
  image: string | null;
  last_used_at?: Date | null;
}

export function findAccessToken(tx: Queryable, tokenHash: string): Promise<CredentialRow | undefined> {
  return tx
    .selectFrom('access_tokens as t')
    .innerJoin('memberships as m', (j) =>
      j.onRef('m.organization_id', '=', 't.organization_id').onRef('m.user_id', '=', 't.user_id'),
    )
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id', 't.organization_id', 't.user_id', 'm.role', 'u.email', 'u.name', 'u.image'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.revoked_at', 'is', null)
    .where('t.expires_at', '>', sql<Date>`now()`)
    .where('m.status', '=', 'active')
    .executeTakeFirst();
}

export function findApiKey(tx: Queryable, keyHash: string): Promise<CredentialRow | undefined> {
  return tx
    .selectFrom('api_keys as k')
    .innerJoin('memberships as m', (j) =>
      j.onRef('m.organization_id', '=', 'k.organization_id').onRef('m.user_id', '=', 'k.user_id'),
    )
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .select([
      'k.id',
      'k.organization_id',
      'k.user_id',
      'm.role',
      'u.email',
      'u.name',
      'u.image',
      'k.last_used_at',
    ])
    .where('k.key_hash', '=', keyHash)
    .where('k.revoked_at', 'is', null)
    .where('m.status', '=', 'active')
    .executeTakeFirst();
}

/**
 * One statement that resolves a bearer credential (by its hash) and, for the row it finds, makes
 * the transaction it runs in that organization's (see `tenantSettings`): sent with BEGIN, the whole
 * set-up of a request is one round trip. No row: unknown, revoked or expired credential, or the
 * membership is no longer active. Sent without parameters, so the hash (64 hex digits, checked) is
 * written as a literal. An API key's use is recorded in it too, at most once a minute.
 */
export function credentialOpening(kind: 'token' | 'apikey', hash: string): string {
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error('credentialOpening: not a sha-256 hex digest');
  const [table, column, extra] =
    kind === 'token'
      ? ['access_tokens', 'token_hash', `and c.expires_at > now()`]
      : ['api_keys', 'key_hash', ''];
  const lastUsed = kind === 'apikey' ? 'c.last_used_at' : 'null::timestamptz as last_used_at';
  // A key records its use at most once a minute (as `touchApiKey`), in the same statement.
  const touch =
    kind === 'apikey'
      ? `with touched as (
  update api_keys set last_used_at = now()
   where key_hash = ${literal(hash)} and revoked_at is null
     and (last_used_at is null or last_used_at < now() - interval '1 minute'))
`
      : '';
  return `${touch}select c.id, c.organization_id, c.user_id, m.role, u.email, u.name, u.image, ${lastUsed},
       ${tenantSettings('c.organization_id')}
  from ${table} c
  join memberships m on m.organization_id = c.organization_id and m.user_id = c.user_id
  join users u on u.id = c.user_id
 where c.${column} = ${literal(hash)} and c.revoked_at is null ${extra} and m.status = 'active'`;
}

/** Records use of a key, at most once a minute so that busy keys do not write on every call. */
export async function touchApiKey(tx: Queryable, id: string): Promise<void> {
  await tx
    .updateTable('api_keys')
    .set({ last_used_at: sql`now()` })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('last_used_at', 'is', null),
        eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`),
      ]),
    )
    .execute();
}

/** Active memberships of a user, oldest first. */
export function activeMemberships(tx: Tx, userId: string) {
  return tx
    .selectFrom('memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['m.organization_id', 'm.role', 'o.name as organization_name'])
    .where('m.user_id', '=', userId)
    .where('m.status', '=', 'active')
    .orderBy('m.created_at')
    .execute();
}

export async function insertAccessToken(
  tx: Tx,
  row: { organizationId: string; userId: string; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await tx
    .insertInto('access_tokens')
    .values({
      organization_id: row.organizationId,
      user_id: row.userId,
      token_hash: row.tokenHash,
      expires_at: row.expiresAt,
    })
    .execute();
}

export async function revokeAccessToken(tx: Tx, id: string): Promise<void> {
  await tx.updateTable('access_tokens').set({ revoked_at: sql`now()` }).where('id', '=', id).execute();
}

/**
 * The caller's organization and the sites assigned to the member (not their descendants, in id
 * order), in one statement: GET /me is then one round trip besides opening and committing.
 */
export function organizationAndAssignedSites(tx: Tx, organizationId: string, userId: string) {
  return tx
    .selectFrom('organizations as o')
    .select([
      'o.id',
      'o.name',
      sql<string[]>`array(
        select ms.site_id::text from membership_sites ms
         where ms.organization_id = o.id and ms.user_id = ${userId}
         order by ms.site_id)`.as('site_ids'),
      // The person's language, in the same statement (GET /me stays one read).
      sql<string | null>`(select u.locale from users u where u.id = ${userId})`.as('locale'),
    ])
    .where('o.id', '=', organizationId)
    .executeTakeFirst();
}

/** `credentialOpening` as the statement that begins the request's transaction. */
export function credentialOpeningQuery(kind: 'token' | 'apikey', hash: string): CompiledQuery<CredentialRow> {
  return CompiledQuery.raw(credentialOpening(kind, hash)) as CompiledQuery<CredentialRow>;
}
