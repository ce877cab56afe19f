// Accepting an invitation: the page the invitation e-mail links to (/app/accept-invitation?token=…).
// It asks the service what the link is about (POST /invitations/describe: the token goes in the
// body, never into another address), names the organization and the invited address, and asks
// for a name and password, or for the existing account's password.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { errorLines, post, session } from './api.js';
import { Link } from './router.js';
import { roleWord } from './signin.js';
import { Errors, Loading } from './ui.js';

function Page({ title, children }) {
  return html`<main class="narrow" id="main"><section class="card"><h1>${title}</h1>${children}</section></main>`;
}

const signInLink = html`<${Link} href="/app/sign-in">Sign in to SDCS<//>`;

export function AcceptInvitation({ token, onSignedIn }) {
  const [invitation, setInvitation] = useState(null);
  const [lookupErrors, setLookupErrors] = useState(null);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState([]);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!token) return;
    post('/invitations/describe', { token })
      .then(setInvitation)
      .catch((error) => setLookupErrors(error.status === 404 ? [] : errorLines(error)));
  }, [token]);

  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setErrors([]);
    try {
      // An existing account keeps its name: the service ignores the one sent, which must not be empty.
      const body = { token, name: invitation.hasAccount ? invitation.email : name, password };
      const answer = await post('/invitations/accept', body);
      if (!answer.success) {
        setErrors([answer.message]);
        return;
      }
      session.save(answer.accessToken, answer.organizationId);
      onSignedIn();
    } catch (error) {
      setErrors(errorLines(error));
    } finally {
      setBusy(false);
    }
  };

  if (!token) {
    return html`<${Page} title="Invitation link incomplete">
      <p>This link has no invitation in it. Open the link from the invitation e-mail again, or ask for a new invitation.</p>
      <p>Already a member? ${signInLink}.</p>
    <//>`;
  }
  if (lookupErrors && !lookupErrors.length) {
    return html`<${Page} title="This invitation link is not valid">
      <p>The link may have been copied incompletely, or the invitation was withdrawn. Ask the person who invited you for a new invitation.</p>
      <p>Already a member? ${signInLink}.</p>
    <//>`;
  }
  if (lookupErrors) {
    return html`<${Page} title="Join your organization on SDCS"><${Errors} lines=${lookupErrors} /><//>`;
  }
  if (!invitation)
    return html`<${Page} title="Join your organization on SDCS"><${Loading} what="your invitation" /><//>`;
  const org = invitation.organizationName;
  if (invitation.state === 'accepted') {
    return html`<${Page} title=${`You have joined ${org}`}>
      <p>This invitation to <strong>${org}</strong> has already been accepted.</p>
      <p>${signInLink} with your e-mail address and password.</p>
    <//>`;
  }
  if (invitation.state === 'expired') {
    return html`<${Page} title="This invitation has expired">
      <p>The invitation to <strong>${org}</strong> was valid for 7 days. Ask the person who invited you to send a new one.</p>
      <p>Already a member? ${signInLink}.</p>
    <//>`;
  }
  const existing = invitation.hasAccount;
  return html`<${Page} title=${`Join ${org} on SDCS`}>
    <p>${invitation.inviterName ? html`<strong>${invitation.inviterName}</strong> invites you` : 'You are invited'}, <strong>${invitation.email}</strong>, to report sustainability data for <strong>${org}</strong> with the role <strong>${roleWord(invitation.role)}</strong>.</p>
    <p>${
      existing
        ? 'This address already has an SDCS account: enter its password to accept.'
        : 'Choose the name your colleagues will see and a password of at least 8 characters.'
    }</p>
    <form onSubmit=${submit} novalidate>
      <div class="field">
        <label for="accept-email">E-mail address</label>
        <input id="accept-email" type="email" autocomplete="username" value=${invitation.email} readonly />
      </div>
      ${
        existing
          ? null
          : html`<div class="field">
            <label for="accept-name">Your name</label>
            <input id="accept-name" autocomplete="name" required maxlength="200" value=${name}
              onInput=${(e) => setName(e.currentTarget.value)} />
          </div>`
      }
      <div class="field">
        <label for="accept-password">Password</label>
        <input id="accept-password" type="password" required minlength=${existing ? undefined : '8'}
          autocomplete=${existing ? 'current-password' : 'new-password'}
          value=${password} onInput=${(e) => setPassword(e.currentTarget.value)} />
      </div>
      <${Errors} lines=${errors} />
      <button type="submit" disabled=${busy}>Accept and continue</button>
    </form>
    <p class="hint">Accepted this invitation already? ${signInLink}.</p>
  <//>`;
}
