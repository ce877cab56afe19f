import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOutbox } from '../../src/mail/outbox.ts';
import { api, type TestContext } from './app.ts';
import type { Tenant } from './factories.ts';

/** Shared by the invitation test files: calls, the outbox, and small lookups. */

export const PUBLIC_URL = 'https://sdcs.example.org';
export const INVITE_URL = '/organizations/current/invitations';

/** Test configuration: links under PUBLIC_URL, e-mails in an outbox of the file's own. */
export const invitationTestConfig = () => ({
  dataDir: join(tmpdir(), `sdcs-invitations-${randomBytes(6).toString('hex')}`),
  publicUrl: PUBLIC_URL,
});

export const newEmail = (prefix = 'invitee') => `${prefix}-${randomBytes(5).toString('hex')}@example.com`;

export const issuePaths = (body: { issues?: { path: string }[] }) => (body.issues ?? []).map((i) => i.path);

export function invitationHelpers(t: TestContext) {
  /** The e-mails in the outbox addressed to `email` (any letter case), oldest first. */
  async function mailsTo(email: string) {
    const all = await readOutbox(join(t.config.dataDir, 'outbox'));
    return all.filter((m) => m.to.toLowerCase() === email.toLowerCase());
  }

  return {
    mailsTo,

    invite(token: string, body: { email: string; assignedSiteIds: string[]; role: string }) {
      return api(t, 'POST', INVITE_URL, { token, body });
    },

    accept(token: string, name = 'New Person', password = 'a long enough password') {
      return api(t, 'POST', '/invitations/accept', { body: { token, name, password } });
    },

    /** The token in the newest invitation e-mail sent to `email`. */
    async tokenMailedTo(email: string): Promise<string> {
      const mails = await mailsTo(email);
      const match = /accept-invitation\?token=(\S+)/.exec(mails.at(-1)?.text ?? '');
      if (!match) throw new Error(`no invitation e-mail to ${email}`);
      return match[1]!;
    },

    /** The member entry (as the owner lists it) for `email`, or undefined. */
    async memberOf(org: Tenant, email: string) {
      const list = await api(t, 'GET', '/organizations/current/members', { token: org.owner.token });
      return list.body.find((m: { email: string }) => m.email.toLowerCase() === email.toLowerCase());
    },
  };
}
