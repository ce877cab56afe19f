// Sign in (with the organization choice); accepting an invitation is in invitation.js.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { answer, api, errorLines, session } from './api.js';
import type { Answer, Body } from './api-shapes.js';
import { roleName } from './format.js';
import { t } from './i18n/index.js';
import { SingleSignOn } from './sso.js';
import { Errors, inputValue } from './ui.js';

/**
 * The sign-in in flight, if any: it outlives the form that sent it. Choosing a language while it
 * is on its way draws the app afresh (a new form); the new form shows it as under way and takes
 * its answer, so the person lands signed in (or sees why not) in the language they chose.
 */
type Organization = Answer<'/api/v1/auth/login', 'post'>['organizations'][number];
type Choice = { choose: Organization[]; organizationId: string } | null;
type Attempt = {
  email: string;
  organizations: Organization[] | null;
  organizationId: string;
  promise: Promise<Choice>;
};
let inFlight: Attempt | null = null;

/** Signs in; answers the organizations to choose from when the account has several and none was named. */
async function signIn(body: Body<'/api/v1/auth/login'>): Promise<Choice> {
  const signedIn = await answer(api.POST('/api/v1/auth/login', { body }));
  session.save(signedIn.accessToken, signedIn.organizationId);
  if (!body.organizationId && signedIn.organizations.length > 1) {
    // Several organizations: the person chooses, then signs in to that one.
    await answer(api.POST('/api/v1/auth/logout')).catch(() => undefined);
    session.clear();
    return { choose: signedIn.organizations, organizationId: signedIn.organizationId };
  }
  return null;
}

export function SignIn({ onSignedIn, notice }: { onSignedIn: () => void; notice?: string | null }) {
  const [email, setEmail] = useState(inFlight?.email ?? '');
  const [password, setPassword] = useState('');
  const [organizations, setOrganizations] = useState<Organization[] | null>(inFlight?.organizations ?? null);
  const [organizationId, setOrganizationId] = useState(inFlight?.organizationId ?? '');
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(Boolean(inFlight));

  /** Waits for the sign-in in flight; only the form on the page (the latest) takes its answer. */
  const mounted = useRef(true);
  const follow = (attempt: Attempt) =>
    attempt.promise.then(
      (choice: Choice) => {
        if (!mounted.current) return;
        setBusy(false);
        if (choice) {
          setOrganizations(choice.choose);
          setOrganizationId(choice.organizationId);
          return;
        }
        setPassword('');
        onSignedIn();
      },
      (error: unknown) => {
        if (!mounted.current) return;
        setBusy(false);
        setErrors(errorLines(error));
      },
    );

  // A form drawn while a sign-in is on its way (after a change of language) waits for it.
  useEffect(() => {
    if (inFlight) follow(inFlight);
    return () => {
      mounted.current = false;
    };
  }, []);

  const submit = (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setErrors([]);
    const body = { email, password, ...(organizationId ? { organizationId } : {}) };
    const attempt: Attempt = { email, organizations, organizationId, promise: signIn(body) };
    inFlight = attempt;
    const settled = () => {
      if (inFlight === attempt) inFlight = null;
    };
    attempt.promise.then(settled, settled);
    follow(attempt);
  };

  return html`<main class="narrow" id="main">
    <section class="card">
      <h1>${t('signin.title')}</h1>
      ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
      <${SingleSignOn} onSignedIn=${onSignedIn} />
      <form onSubmit=${submit} novalidate>
        <div class="field">
          <label for="signin-email">${t('field.email')}</label>
          <input id="signin-email" type="email" autocomplete="username" required value=${email}
            onInput=${(e: Event) => setEmail(inputValue(e))} />
        </div>
        <div class="field">
          <label for="signin-password">${t('field.password')}</label>
          <input id="signin-password" type="password" autocomplete="current-password" required value=${password}
            onInput=${(e: Event) => setPassword(inputValue(e))} />
        </div>
        ${
          organizations
            ? html`<div class="field">
              <label for="signin-organization">${t('signin.organization')}</label>
              <select id="signin-organization" value=${organizationId}
                onChange=${(e: Event) => setOrganizationId(inputValue(e))}>
                ${organizations.map((o: Organization) => html`<option value=${o.id}>${o.name} (${roleName(o.role)})</option>`)}
              </select>
              <p class="hint">${t('signin.chooseOrganization')}</p>
            </div>`
            : null
        }
        <${Errors} lines=${errors} />
        <button type="submit" disabled=${busy}>${organizations ? t('signin.continue') : t('signin.submit')}</button>
      </form>
    </section>
  </main>`;
}
