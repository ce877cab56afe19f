// Single sign-on on the sign-in screen (decision 220). `/app/sign-in?org=<organizationId>` (the
// address an owner hands out, GET /organizations/current/sso's `signInUrl`) offers "Sign in with
// <name>"; the provider's way back lands here with a one-time code in the fragment
// (`#sso=<code>`), exchanged by POST for the service's token, or with the reason of a refusal
// (`#ssoError=<reason>`). The fragment leaves the address at once.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { errorLines, get, post, session } from './api.js';
import { t } from './i18n/index.js';
import { Errors } from './ui.js';

const REASONS = {
  state: () => t('sso.error.state'),
  provider: () => t('sso.error.provider'),
  cancelled: () => t('sso.error.cancelled'),
  verify: () => t('sso.error.verify'),
  expired: () => t('sso.error.expired'),
  email: () => t('sso.error.email'),
  domain: () => t('sso.error.domain'),
  'not-invited': () => t('sso.error.notInvited'),
};

export function SingleSignOn({ onSignedIn }) {
  const [offer, setOffer] = useState(null);
  const [errors, setErrors] = useState([]);

  useEffect(() => {
    const handed = new URLSearchParams(location.hash.slice(1));
    const code = handed.get('sso');
    const reason = handed.get('ssoError');
    if (code || reason) history.replaceState(null, '', location.pathname + location.search);
    if (reason) setErrors([(REASONS[reason] ?? REASONS.verify)()]);
    if (code) {
      post('/auth/oidc/exchange', { code })
        .then((answer) => {
          session.save(answer.accessToken, answer.organizationId);
          onSignedIn();
        })
        .catch((error) => setErrors(errorLines(error)));
    }
    const organizationId = new URLSearchParams(location.search).get('org');
    if (organizationId) {
      get(`/auth/oidc/${encodeURIComponent(organizationId)}`)
        .then(setOffer)
        .catch(() => setOffer(null));
    }
  }, []);

  if (!offer && errors.length === 0) return null;
  return html`<div class="sso">
    <${Errors} lines=${errors} />
    ${
      offer
        ? html`<p><a class="button" href=${offer.startUrl}>${t('sso.signInWith', { name: offer.displayName })}</a></p>
          <p class="hint">${offer.ssoOnly ? t('sso.only') : t('sso.orPassword')}</p>`
        : null
    }
  </div>`;
}
