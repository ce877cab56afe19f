// Accepting an invitation: the page the invitation e-mail links to (/app/accept-invitation?token=…).
// It asks the service what the link is about (POST /invitations/describe: the token goes in the
// body, never into another address), names the organization and the invited address, and asks
// for a name and password, or for the existing account's password.
import { html } from 'htm/preact';
import type { ComponentChildren, VNode } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, answer, api, errorLines, session } from './api.js';
import type { Answer } from './api-shapes.js';
import { roleName } from './format.js';
import { t } from './i18n/index.js';
import { Link } from './router.js';
import { Errors, inputValue, Loading } from './ui.js';

/** `<b>…</b>` in a message: strong text. */
const strong = (chunks: ComponentChildren[]): VNode => html`<strong>${chunks}</strong>`;

function Page({ title, children }: { title: string; children?: ComponentChildren }) {
  return html`<main class="narrow" id="main"><section class="card"><h1>${title}</h1>${children}</section></main>`;
}

const signInLink = () => html`<${Link} href="/app/sign-in">${t('signin.title')}<//>`;

type Invitation = Answer<'/api/v1/invitations/describe', 'post'>;

/**
 * What outlives the page that asked for it: choosing a language draws the app afresh (a new page),
 * which must neither ask the service again nor lose an acceptance on its way. The description of
 * a token is asked once; the acceptance in flight is followed by the page drawn last, which shows
 * it as under way (with the name typed) and takes its answer.
 */
let described: { token: string; promise: Promise<Invitation> } | null = null;
type Acceptance = { token: string; name: string; promise: Promise<{ error: string[] | null }> };
let inFlight: Acceptance | null = null;

function describeOnce(token: string): Promise<Invitation> {
  if (described?.token !== token) {
    const promise = answer(api.POST('/api/v1/invitations/describe', { body: { token } }));
    described = { token, promise };
    // A refusal is not kept: the page drawn next asks again.
    promise.catch(() => {
      if (described?.promise === promise) described = null;
    });
  }
  return described.promise;
}

/** Accepts; answers the lines to show when it was refused (null: signed in). */
async function accept(body: { token: string; name: string; password: string }) {
  try {
    const accepted = await answer(api.POST('/api/v1/invitations/accept', { body }));
    if (!accepted.success) return { error: [accepted.message] };
    session.save(accepted.accessToken, accepted.organizationId);
    described = null; // the invitation is no longer open
    return { error: null };
  } catch (error) {
    return { error: errorLines(error) };
  }
}

export function AcceptInvitation({ token, onSignedIn }: { token: string | null; onSignedIn: () => void }) {
  const pending = inFlight && inFlight.token === token ? inFlight : null;
  const [invitation, setInvitation] = useState<Invitation | null>(null);
  const [lookupErrors, setLookupErrors] = useState<string[] | null>(null);
  const [name, setName] = useState(pending?.name ?? '');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(Boolean(pending));

  /** Waits for the acceptance in flight; only the page drawn last takes its answer. */
  const mounted = useRef(true);
  const follow = (attempt: Acceptance) =>
    attempt.promise.then(({ error }) => {
      if (!mounted.current) return;
      setBusy(false);
      if (error) return setErrors(error);
      onSignedIn();
    });

  useEffect(() => {
    if (pending) follow(pending);
    return () => {
      mounted.current = false;
    };
  }, []);

  useEffect(() => {
    if (!token) return;
    describeOnce(token)
      .then((found) => mounted.current && setInvitation(found))
      .catch(
        (error: unknown) =>
          mounted.current &&
          setLookupErrors(error instanceof ApiError && error.status === 404 ? [] : errorLines(error)),
      );
  }, [token]);

  const submit = (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setErrors([]);
    // An existing account keeps its name: the service ignores the one sent, which must not be empty.
    const sentName = (invitation?.hasAccount ? invitation.email : name) ?? '';
    const attempt: Acceptance = {
      token: token ?? '',
      name,
      promise: accept({ token: token ?? '', name: sentName, password }),
    };
    inFlight = attempt;
    attempt.promise.then(() => {
      if (inFlight === attempt) inFlight = null;
    });
    follow(attempt);
  };

  if (!token) {
    return html`<${Page} title=${t('invite.incompleteTitle')}>
      <p>${t('invite.incomplete')}</p>
      <p>${t('invite.alreadyMember')} ${signInLink()}.</p>
    <//>`;
  }
  if (lookupErrors && !lookupErrors.length) {
    return html`<${Page} title=${t('invite.invalidTitle')}>
      <p>${t('invite.invalid')}</p>
      <p>${t('invite.alreadyMember')} ${signInLink()}.</p>
    <//>`;
  }
  if (lookupErrors) {
    return html`<${Page} title=${t('invite.joinTitle')}><${Errors} lines=${lookupErrors} /><//>`;
  }
  if (!invitation)
    return html`<${Page} title=${t('invite.joinTitle')}><${Loading} what=${t('loading.invitation')} /><//>`;
  const org = invitation.organizationName;
  if (invitation.state === 'accepted') {
    return html`<${Page} title=${t('invite.joinedTitle', { org })}>
      <p>${t('invite.accepted', { org, b: strong })}</p>
      <p>${signInLink()} ${t('invite.withPassword')}</p>
    <//>`;
  }
  if (invitation.state === 'expired') {
    return html`<${Page} title=${t('invite.expiredTitle')}>
      <p>${t('invite.expired', { org, b: strong, days: 7 })}</p>
      <p>${t('invite.alreadyMember')} ${signInLink()}.</p>
    <//>`;
  }
  const existing = invitation.hasAccount;
  const invited = { org, email: invitation.email, role: roleName(invitation.role), b: strong };
  return html`<${Page} title=${t('invite.joinOrgTitle', { org })}>
    <p>${
      invitation.inviterName
        ? t('invite.invitedBy', { ...invited, inviter: invitation.inviterName })
        : t('invite.invited', invited)
    }</p>
    <p>${existing ? t('invite.existingAccount') : t('invite.newAccount', { min: 8 })}</p>
    <form onSubmit=${submit} novalidate>
      <div class="field">
        <label for="accept-email">${t('field.email')}</label>
        <input id="accept-email" type="email" autocomplete="username" value=${invitation.email} readonly />
      </div>
      ${
        existing
          ? null
          : html`<div class="field">
            <label for="accept-name">${t('invite.yourName')}</label>
            <input id="accept-name" autocomplete="name" required maxlength="200" value=${name}
              onInput=${(e: Event) => setName(inputValue(e))} />
          </div>`
      }
      <div class="field">
        <label for="accept-password">${t('field.password')}</label>
        <input id="accept-password" type="password" required minlength=${existing ? undefined : '8'}
          autocomplete=${existing ? 'current-password' : 'new-password'}
          value=${password} onInput=${(e: Event) => setPassword(inputValue(e))} />
      </div>
      <${Errors} lines=${errors} />
      <button type="submit" disabled=${busy}>${t('invite.acceptContinue')}</button>
    </form>
    <p class="hint">${t('invite.acceptedAlready')} ${signInLink()}.</p>
  <//>`;
}
