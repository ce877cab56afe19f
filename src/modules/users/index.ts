/** The users module's front door: what other modules (and the composition root) may use. */
export { usersRepository } from './users.repository.ts';
