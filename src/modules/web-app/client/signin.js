// Sign in (with the organization choice); accepting an invitation is in invitation.js.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { errorLines, post, session } from './api.js';
import { roleName } from './format.js';
import { t } from './i18n/index.js';
import { SingleSignOn } from './sso.js';
import { Errors } from './ui.js';

export function SignIn({ onSignedIn, notice }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [organizations, setOrganizations] = useState(null);
  const [organizationId, setOrganizationId] = useState('');
  const [errors, setErrors] = useState([]);
  const [busy, setBusy] = useState(false);

  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setErrors([]);
    try {
      const body = { email, password, ...(organizationId ? { organizationId } : {}) };
      const answer = await post('/auth/login', body);
      if (!organizationId && answer.organizations.length > 1) {
        // Several organizations: the person chooses, then signs in to that one.
        setOrganizations(answer.organizations);
        setOrganizationId(answer.organizationId);
        session.save(answer.accessToken, answer.organizationId);
        await post('/auth/logout', {}).catch(() => undefined);
        session.clear();
        return;
      }
      session.save(answer.accessToken, answer.organizationId);
      setPassword('');
      onSignedIn();
    } catch (error) {
      setErrors(errorLines(error));
    } finally {
      setBusy(false);
    }
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
            onInput=${(e) => setEmail(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="signin-password">${t('field.password')}</label>
          <input id="signin-password" type="password" autocomplete="current-password" required value=${password}
            onInput=${(e) => setPassword(e.currentTarget.value)} />
        </div>
        ${
          organizations
            ? html`<div class="field">
              <label for="signin-organization">${t('signin.organization')}</label>
              <select id="signin-organization" value=${organizationId}
                onChange=${(e) => setOrganizationId(e.currentTarget.value)}>
                ${organizations.map((o) => html`<option value=${o.id}>${o.name} (${roleName(o.role)})</option>`)}
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
