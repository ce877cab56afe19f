// Single sign-on on the sign-in screen (decision 220). `/app/sign-in?org=<organizationId>` (the
// address an owner hands out, GET /organizations/current/sso's `signInUrl`) offers "Sign in with
// <name>"; the provider's way back lands here with a one-time code in the fragment
// (`#sso=<code>`), exchanged by POST for the service's token, or with the reason of a refusal
// (`#ssoError=<reason>`). The fragment leaves the address at once.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { answer, api, errorLines, session } from './api.js';
import type { Answer } from './api-shapes.js';
import { t } from './i18n/index.js';
import { Errors } from './ui.js';

const REASONS: Record<string, () => string> = {
  state: () => t('sso.error.state'),
  provider: () => t('sso.error.provider'),
  cancelled: () => t('sso.error.cancelled'),
  verify: () => t('sso.error.verify'),
  expired: () => t('sso.error.expired'),
  email: () => t('sso.error.email'),
  domain: () => t('sso.error.domain'),
  'not-invited': () => t('sso.error.notInvited'),
};

type Offer = Answer<'/api/v1/auth/oidc/{organizationId}'>;

export function SingleSignOn({ onSignedIn }: { onSignedIn: () => void }) {
  const [offer, setOffer] = useState<Offer | null>(null);
  const [errors, setErrors] = useState<string[]>([]);

  useEffect(() => {
    const handed = new URLSearchParams(location.hash.slice(1));
    const code = handed.get('sso');
    const reason = handed.get('ssoError');
    if (code || reason) history.replaceState(null, '', location.pathname + location.search);
    if (reason) setErrors([(REASONS[reason] ?? (() => t('sso.error.verify')))()]);
    if (code) {
      answer(api.POST('/api/v1/auth/oidc/exchange', { body: { code } }))
        .then((answer) => {
          session.save(answer.accessToken, answer.organizationId);
          onSignedIn();
        })
        .catch((error) => setErrors(errorLines(error)));
    }
    const organizationId = new URLSearchParams(location.search).get('org');
    if (organizationId) {
      answer(api.GET('/api/v1/auth/oidc/{organizationId}', { params: { path: { organizationId } } }))
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
