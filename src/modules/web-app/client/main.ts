// The SDCS reporting app: sign in, My reporting, Enter a period, Review, Import a workbook.
import './app.css';
import { html, render } from 'htm/preact';
import type { ComponentChildren, ComponentType, VNode } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { answer, api, errorLines, session, whenSignedOut } from './api.js';
import type { Me } from './api-shapes.js';
import { roleName } from './format.js';
import { t, useLanguage } from './i18n/index.js';
import { AcceptInvitation } from './invitation.js';
import {
  followAccount,
  LanguagePicker,
  startLanguage,
  switchLanguage,
  whenLanguageChanges,
} from './language.js';
import { forgetAnswers, keepAnswer, rememberUser } from './offline/cache.js';
import { startOutbox } from './offline/outbox.js';
import { registerServiceWorker } from './offline/register.js';
import { OutboxStatus } from './offline/status.js';
import { EnterPeriod } from './period.js';
import { MyReporting } from './reporting.js';
import { Review } from './review.js';
import { Link, mayLeave, navigate, useLocation } from './router.js';
import { SignIn } from './signin.js';
import { Errors, Loading } from './ui.js';

const Import = lazyScreen(() => import('./import.js'), 'Import');

/** A screen loaded when first shown (the import screen brings the spreadsheet readers). */
function lazyScreen<P extends object, N extends string>(
  load: () => Promise<Record<N, ComponentType<P>>>,
  name: N,
) {
  let Loaded: ComponentType<P> | null = null;
  return function Lazy(props: P) {
    const [, setReady] = useState(0);
    const [error, setError] = useState<unknown>(null);
    useEffect(() => {
      if (!Loaded) {
        load()
          .then((module: Record<N, ComponentType<P>>) => {
            Loaded = module[name];
            setReady(1);
          })
          .catch((e: unknown) => setError(e));
      }
    }, []);
    if (error) return html`<${Errors} lines=${[t('app.screenNotLoaded')]} />`;
    return Loaded ? html`<${Loaded} ...${props} />` : html`<${Loading} what=${t('loading.screen')} />`;
  };
}

const MANAGERS = new Set(['OWNER', 'MANAGER']);

function App() {
  const { path, query } = useLocation();
  const [me, setMe] = useState<Me | null>(null);
  const [meError, setMeError] = useState<string[] | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    whenSignedOut(() => {
      setMe(null);
      setNotice(t('app.sessionEnded'));
      setVersion((v) => v + 1);
    });
  }, []);

  useEffect(() => {
    if (!session.token) return;
    setMeError(null);
    answer(api.GET('/api/v1/me'))
      .then((found) => {
        // The offline parts: answers kept for this person, the queue sent (offline/).
        rememberUser(found.user.id);
        keepAnswer('/me', found);
        startOutbox();
        followAccount(found.user.locale);
        setMe(found);
      })
      .catch((error) => setMeError(errorLines(error)));
  }, [version]);

  const signedIn = () => {
    setNotice(null);
    setVersion((v) => v + 1);
    // After signing in from the invitation or the sign-in page, land on My reporting (or where
    // the person was going).
    // After an ended session the address is still the screen the person was on: they stay there.
    if (path === '/app/accept-invitation' || path === '/app/sign-in')
      navigate('/app', { replace: true, force: true });
  };

  if (path === '/app/accept-invitation' && (query.get('token') || !session.token)) {
    return html`<${Frame}><${AcceptInvitation} token=${query.get('token')} onSignedIn=${signedIn} /><//>`;
  }
  if (!session.token) {
    return html`<${Frame}><${SignIn} onSignedIn=${signedIn} notice=${notice} /><//>`;
  }
  if (meError) return html`<${Frame}><main id="main"><${Errors} lines=${meError} /></main><//>`;
  if (!me) return html`<${Frame}><main id="main"><${Loading} what=${t('loading.account')} /></main><//>`;

  const signOut = async () => {
    if (!mayLeave()) return;
    await answer(api.POST('/api/v1/auth/logout')).catch(() => undefined);
    await forgetAnswers();
    session.clear();
    setMe(null);
    setNotice(t('app.signedOut'));
    // The next person on this device starts from the browser's language again.
    sessionStorage.removeItem('sdcs.locale');
    switchLanguage(null, { remember: false });
    navigate('/app/sign-in', { replace: true, force: true });
  };
  const isManager = MANAGERS.has(me.role);
  const enter = /^\/app\/enter\/([^/]+)\/([^/]+)\/(\d{4})\/(\d{1,2})$/.exec(path);
  let screen: VNode;
  if (enter) {
    screen = html`<${EnterPeriod} me=${me} formId=${enter[1]} siteId=${enter[2]} year=${Number(enter[3])}
      periodUnit=${Number(enter[4])} />`;
  } else if (path === '/app/review' && isManager) {
    screen = html`<${Review} me=${me} query=${query} />`;
  } else if (path === '/app/import' && isManager) {
    screen = html`<${Import} me=${me} />`;
  } else {
    screen = html`<${MyReporting} me=${me} query=${query} />`;
  }
  return html`<${Frame} me=${me} path=${path} isManager=${isManager} onSignOut=${signOut}>${screen}<//>`;
}

function Frame({
  me,
  path,
  isManager,
  onSignOut,
  children,
}: {
  me?: Me;
  path?: string;
  isManager?: boolean;
  onSignOut?: () => void;
  children?: ComponentChildren;
}) {
  const current = (href: string) => (path === href ? 'page' : undefined);
  return html`<a class="skip" href="#main">${t('app.skip')}</a>
    <header class="top">
      <div class="top-inner">
        <span class="brand">SDCS</span>
        ${
          me
            ? html`<nav aria-label=${t('nav.label')}>
                <${Link} class="nav-link" href="/app" aria-current=${current('/app')}>${t('nav.reporting')}<//>
                ${isManager ? html`<${Link} class="nav-link" href="/app/review" aria-current=${current('/app/review')}>${t('nav.review')}<//>` : null}
                ${isManager ? html`<${Link} class="nav-link" href="/app/import" aria-current=${current('/app/import')}>${t('nav.import')}<//>` : null}
              </nav>
              <div class="who">
                <span>${me.user.name || me.user.email} · ${me.organization.name} (${roleName(me.role)})</span>
                <button type="button" class="secondary small" onClick=${onSignOut}>${t('app.signOut')}</button>
              </div>`
            : null
        }
        <${LanguagePicker} signedIn=${Boolean(me)} />
      </div>
    </header>
    ${me ? html`<${OutboxStatus} />` : null}
    ${children}`;
}

registerServiceWorker();
/** The app in the current language: a new language draws every screen afresh. */
function Root() {
  const [language, setLanguage] = useState<string | null>(null);
  useEffect(() => whenLanguageChanges(setLanguage), []);
  return html`<${App} key=${language ?? ''} />`;
}

const root = document.getElementById('app') as HTMLElement;
useLanguage(startLanguage())
  .catch(() => useLanguage('en'))
  .then(() => {
    root.textContent = '';
    render(html`<${Root} />`, root);
  });
