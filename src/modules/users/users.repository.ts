import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

/**
 * People, across organizations (a user may belong to several): used by sign-in, sign-up,
 * invitations and the command line, in system transactions.
 */
export const usersRepository = {
  /** The user with this e-mail address, compared without case. */
  findByEmail(tx: Tx, email: string) {
    return tx
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .executeTakeFirst();
  },

  insert(tx: Tx, user: { email: string; name: string; passwordHash: string | null }) {
    return tx
      .insertInto('users')
      .values({ email: user.email, name: user.name, password_hash: user.passwordHash, image: null })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  async setPasswordHash(tx: Tx, userId: string, passwordHash: string): Promise<void> {
    await tx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
  },

  /** The person's chosen language, or null (follow the browser). */
  async locale(tx: Tx, userId: string): Promise<string | null> {
    const row = await tx.selectFrom('users').select('locale').where('id', '=', userId).executeTakeFirst();
    return row?.locale ?? null;
  },

  async setLocale(tx: Tx, userId: string, locale: string | null): Promise<void> {
    await tx.updateTable('users').set({ locale }).where('id', '=', userId).execute();
  },
};
