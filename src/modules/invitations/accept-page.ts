import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/client.ts';
import { describeInvitation } from './invitations.service.ts';

type Invitation = Awaited<ReturnType<typeof describeInvitation>>;

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 30rem; margin: 3rem auto; padding: 0 1rem; color: #1f2933; }
  label { display: block; margin-top: 1rem; font-weight: 600; }
  input { width: 100%; padding: .5rem; font: inherit; box-sizing: border-box; }
  button { margin-top: 1.5rem; padding: .6rem 1.2rem; font: inherit; cursor: pointer; }
  #result { margin-top: 1.5rem; white-space: pre-wrap; word-break: break-all; }
  .error { color: #b42318; }
  code { background: #f1f3f5; padding: .1rem .3rem; border-radius: 3px; }`;

/** What the page says about the invitation before the form (or instead of it). */
function intro(invitation: Invitation): { text: string; form: boolean } {
  if (!invitation) {
    return {
      text: '<p class="error">This invitation link is not valid. Ask for a new invitation.</p>',
      form: false,
    };
  }
  const org = escapeHtml(invitation.organizationName);
  if (invitation.state === 'accepted') {
    return {
      text: `<p>This invitation to <strong>${org}</strong> has already been accepted. Sign in instead (below).</p>`,
      form: false,
    };
  }
  if (invitation.state === 'expired') {
    return {
      text: `<p class="error">This invitation to <strong>${org}</strong> has expired. Ask for a new one.</p>`,
      form: false,
    };
  }
  const who = invitation.inviterName
    ? `<strong>${escapeHtml(invitation.inviterName)}</strong> invites you`
    : 'You are invited';
  const account = invitation.hasAccount
    ? '<p>You already have an SDCS account: enter its password to accept.</p>'
    : '<p>Choose your name and a password (at least 8 characters).</p>';
  return {
    text:
      `<p>${who}, <strong>${escapeHtml(invitation.email)}</strong>, to join <strong>${org}</strong> ` +
      `as <strong>${escapeHtml(invitation.role)}</strong>.</p>${account}`,
    form: true,
  };
}

// The page the invitation e-mail links to: it says who invites whom to what, and posts the token
// with the name and password typed in to POST /api/v1/invitations/accept.
function page(apiPrefix: string, invitation: Invitation): string {
  const { text, form } = intro(invitation);
  const signIn = `<p>To sign in later: <code>POST ${apiPrefix}/auth/login</code> with your e-mail and password
returns an access token; every call then sends <code>Authorization: Bearer &lt;token&gt;</code>.
All operations are described at <a href="/docs">/docs</a>.</p>`;
  const formHtml = form
    ? `<form id="accept">
  <label for="name">Your name</label><input id="name" name="name" ${invitation?.hasAccount ? '' : 'required'} maxlength="200" autocomplete="name">
  <label for="password">Password</label><input id="password" name="password" type="password" required minlength="8" autocomplete="${invitation?.hasAccount ? 'current-password' : 'new-password'}">
  <button type="submit">Accept invitation</button>
</form>
<div id="result" role="status"></div>
<script>
  const token = new URLSearchParams(location.search).get('token') || '';
  const result = document.getElementById('result');
  document.getElementById('accept').addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { token, name: event.target.name.value, password: event.target.password.value };
    const res = await fetch('${apiPrefix}/invitations/accept', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    const data = await res.json().catch(() => ({}));
    result.className = res.ok ? '' : 'error';
    if (res.ok) {
      event.target.hidden = true;
      document.getElementById('sign-in').hidden = false;
      result.textContent = (data.message || 'Welcome!') + '. Your access token, valid for a while:\\n' + data.accessToken;
    } else {
      result.textContent = [data.message || 'The invitation could not be accepted.', ...(data.issues || []).map((i) => i.message)].join('\\n');
    }
  });
</script>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Accept your invitation · SDCS</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Join your organization on SDCS</h1>
${text}
${formHtml}
<div id="sign-in"${form ? ' hidden' : ''}>${signIn}</div>
</body>
</html>
`;
}

/** Serves the invitation acceptance page at /accept-invitation (outside the API, no credential). */
export function registerAcceptPage(app: FastifyInstance, apiPrefix: string, database: Database): void {
  app.get<{ Querystring: { token?: string } }>(
    '/accept-invitation',
    { config: { public: true }, schema: { hide: true } },
    async (request, reply) => {
      const token = typeof request.query.token === 'string' ? request.query.token.slice(0, 200) : '';
      const invitation = await describeInvitation(database, token);
      return reply
        .type('text/html; charset=utf-8')
        .header(
          'content-security-policy',
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
        )
        .header('referrer-policy', 'no-referrer')
        .header('cache-control', 'no-store')
        .send(page(apiPrefix, invitation));
    },
  );
}
