import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, badRequest, coded, type Issue } from '../../domain/errors.ts';
import type { IssueCode, IssueParams } from '../../domain/issue-codes.ts';
import { hashPassword, randomBase62, sha256Hex } from '../../lib/secrets.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { coversOrganization, siteScope } from '../access/index.ts';
import {
  checkAccountPassword,
  issueAccessToken,
  type PasswordCheckDeps,
  passwordRefusal,
} from '../auth/index.ts';
import {
  authorizeMemberSites,
  grantMessage,
  memberPolicy,
  members,
  requireRole,
  requireSites,
} from '../members/index.ts';
import { users } from '../users/index.ts';
import { invitationMail } from './invitations.mail.ts';
import { invitationsRepository as repo } from './invitations.repository.ts';

export const INVITATION_TTL_DAYS = 7;
const MIN_PASSWORD = 8;

/** A refusal in the invitation result's shape: status 400, `{code, message, success: false}`. */
const refuse = (message: string, issues?: Issue[]) => badRequest(message, issues, { success: false });

/** A refusal of the link itself, with its code (decision 225) as its one issue. */
const refuseCoded = (code: IssueCode, message: string, params?: IssueParams) =>
  refuse(message, [coded(code, message, params)]);

const isUniqueViolation = (err: unknown) => (err as { code?: unknown })?.code === '23505';

export interface InviteInput {
  email: string;
  assignedSiteIds: string[];
  role: string;
  /** The invitee's language for the e-mail (and their account when it has none yet). */
  locale?: string | null | undefined;
}

/**
 * Invites someone: a pending membership with the role and sites, a 7-day token stored as its
 * SHA-256, and the e-mail with the link. The e-mail is sent last inside the transaction, so a
 * failure to send leaves nothing behind. An expired invitation is replaced by the new one.
 */
export async function inviteMember(
  deps: { database: Database; mailer: Mailer; config: Config },
  caller: Caller,
  input: InviteInput,
) {
  const org = caller.organizationId;
  const role = requireRole(input.role, 'role');
  authorize(memberPolicy.canGrantRole(caller, role), grantMessage(role));
  const email = input.email.trim();
  const token = `sdcs_inv_${randomBase62(43)}`;
  try {
    await deps.database.tenant(org, async (tx) => {
      const siteIds = await requireSites(tx, org, input.assignedSiteIds, 'assignedSiteIds');
      const scope = await siteScope(tx, caller);
      // A limited manager invites to sites of theirs, and to at least one (decision 168): a member
      // of no site is for owners and managers of every site to place.
      authorize(
        memberPolicy.canManageMemberSites(scope, await coversOrganization(tx, caller, scope), siteIds),
        siteIds.length === 0
          ? 'You manage only some sites: name at least one of your sites for the person you invite'
          : 'You can only invite people to sites you manage',
      );
      const user = await repo.findOrCreateUser(tx, email);
      const existing = await members.lock(tx, org, user.id);
      if (existing?.status === 'active') throw refuse(`${email} is already a member of this organization`);
      if (existing) {
        const open = await repo.findOpen(tx, org, user.id);
        if (open?.live)
          throw refuseCoded(
            'invitation.pending',
            `${email} already has a pending invitation to this organization`,
            {
              email,
            },
          );
        // The earlier invitation expired (or was never sent): this one replaces it.
        authorize(memberPolicy.canManageMember(caller, existing.role), grantMessage(existing.role));
        await authorizeMemberSites(tx, caller, await members.siteIdsOf(tx, org, user.id));
        await repo.deleteOpen(tx, org, user.id);
        await members.setRole(tx, org, user.id, role);
      } else {
        await members.add(tx, org, { userId: user.id, role, status: 'pending' });
      }
      await members.replaceSites(tx, org, user.id, siteIds);
      const invitation = await repo.insert(tx, org, {
        userId: user.id,
        email,
        tokenHash: sha256Hex(token),
        invitedBy: caller.userId,
        ttlDays: INVITATION_TTL_DAYS,
      });
      const { name: organizationName } = await repo.organizationName(tx, org);
      // The inviter's choice of language, else the one the invitee already chose; kept on an
      // account that has none yet.
      const chosen = await users.locale(tx, user.id);
      const locale = input.locale ?? chosen;
      if (input.locale && !chosen) await users.setLocale(tx, user.id, input.locale);
      await deps.mailer.send(
        invitationMail({
          to: email,
          organizationName,
          inviterName: caller.name,
          role,
          link: `${deps.config.publicUrl}/app/accept-invitation?token=${token}`,
          expiresAt: invitation.expires_at,
          locale,
        }),
      );
    });
  } catch (err) {
    // A concurrent invitation of the same person won the race for the membership or the token slot.
    if (isUniqueViolation(err))
      throw refuseCoded(
        'invitation.pending',
        `${email} already has a pending invitation to this organization`,
        {
          email,
        },
      );
    throw err;
  }
  return { success: true, message: `Invitation sent to ${email}` };
}

export interface AcceptInput {
  token: string;
  name: string;
  password: string;
}

/**
 * What an invitation link is about, for the page it opens; null for an unknown token. Only while
 * the invitation is open does it say whom it invites and as what: a link found later (in a
 * browser's history, a forwarded e-mail) names the organization and nothing about the person.
 */
export async function describeInvitation(database: Database, token: string) {
  if (!token) return null;
  const found = await database.system((tx) => repo.describeByTokenHash(tx, sha256Hex(token)));
  if (!found) return null;
  const state = found.accepted_at
    ? ('accepted' as const)
    : found.live
      ? ('open' as const)
      : ('expired' as const);
  const open = state === 'open';
  return {
    state,
    organizationName: found.organization_name,
    email: open ? found.email : null,
    role: open ? found.role : null,
    inviterName: open ? (found.inviter_name ?? null) : null,
    hasAccount: open ? found.has_account : null,
  };
}

/**
 * Accepts an invitation: activates the membership and returns an access token. A new account
 * takes the name and password given; an existing account must confirm with its password, counted
 * on its attempt budget like a sign-in.
 */
export async function acceptInvitation(
  database: Database,
  config: Config,
  passwords: PasswordCheckDeps,
  input: AcceptInput,
) {
  const found = await database.system((tx) => repo.findByTokenHash(tx, sha256Hex(input.token)));
  if (!found)
    throw refuseCoded('invitation.invalid', 'This invitation link is not valid; ask for a new invitation');
  if (found.accepted_at)
    throw refuseCoded('invitation.accepted', 'This invitation has already been accepted; sign in instead');
  if (!found.live)
    throw refuseCoded('invitation.expired', 'This invitation has expired; ask for a new invitation');
  // An organization that signs in with its identity provider only: the first sign-in there
  // accepts the invitation (decision 220), a password does not.
  const closed = await passwordRefusal(database, found.organization_id);
  if (closed) throw refuse(closed.message);

  const existingAccount = found.password_hash !== null;
  let passwordHash: string | null = null;
  if (existingAccount) {
    // The password of an existing account is checked on that account's attempt budget, as a
    // sign-in is (decision 169): past it, 429 with Retry-After before the password is looked at.
    const account = { email: found.email, passwordHash: found.password_hash };
    if (!(await checkAccountPassword(passwords, found.email, account, input.password))) {
      throw refuse('An account with this e-mail address exists: enter its password to accept', [
        { path: 'password', message: 'password does not match the existing account' },
      ]);
    }
  } else {
    const name = input.name.trim();
    if (name === '') throw refuse('Choose a name', [{ path: 'name', message: 'name must not be blank' }]);
    if (input.password.length < MIN_PASSWORD) {
      throw refuse(`Choose a password of at least ${MIN_PASSWORD} characters`, [
        coded(
          'invitation.passwordTooShort',
          `password must have at least ${MIN_PASSWORD} characters`,
          { min: MIN_PASSWORD },
          'password',
        ),
      ]);
    }
    passwordHash = await hashPassword(input.password);
  }

  const org = found.organization_id;
  return database.tenant(org, async (tx) => {
    if (!(await repo.claim(tx, org, found.id)))
      throw refuseCoded('invitation.invalid', 'This invitation is no longer valid; ask for a new one');
    await repo.activateMembership(tx, org, found.user_id);
    if (passwordHash) await repo.setFirstCredentials(tx, found.user_id, input.name.trim(), passwordHash);
    const token = await issueAccessToken(tx, config, passwords.clock, org, found.user_id);
    return {
      success: true,
      message: `Welcome to ${found.organization_name}`,
      organizationId: org,
      ...token,
    };
  });
}
