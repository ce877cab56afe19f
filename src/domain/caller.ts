import type { Role } from '../db/schema/index.ts';

/** Who is calling: resolved once per request from the bearer credential. */
/**
 * Who values are computed for: a caller (limited to its sites), or a whole organization (a public
 * dashboard link).
 */
export type Viewer = Caller | { organizationId: string };

export interface Caller {
  userId: string;
  organizationId: string;
  role: Role;
  /** A platform administrator (listed in SDCS_ADMIN_EMAILS). */
  isAdmin: boolean;
  email: string;
  name: string;
  image: string | null;
  credential: { kind: 'token' | 'apikey'; id: string };
}
