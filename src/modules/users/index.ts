/** The users module's front door: what other modules (and the composition root) may use. */
import { usersRepository } from './users.repository.ts';

/** What other modules may do with user accounts (people, across organizations). */
export const users = {
  /** The account with this e-mail address (compared case-insensitively), or undefined. */
  findByEmail: usersRepository.findByEmail,
  /** Creates an account; answers its row. */
  create: usersRepository.insert,
  setPasswordHash: usersRepository.setPasswordHash,
  /** The language the person chose (null: follow the browser). */
  locale: usersRepository.locale,
  setLocale: usersRepository.setLocale,
};
