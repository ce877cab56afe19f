// Choosing the app's language: the person's choice (stored on their account by PATCH /me, and
// for this tab in sessionStorage so that a reload or the sign-in page keeps it), else the browser's.
import { html } from 'htm/preact';
import { answer, api, session } from './api.js';
import type { Body } from './api-shapes.js';
import {
  browserLanguage,
  currentLanguage,
  LANGUAGES,
  supportedLanguage,
  t,
  useLanguage,
} from './i18n/index.js';

const CHOSEN = 'sdcs.locale';
let redraw: (language: string) => void = () => {};

/** The language to start in: the one chosen in this tab, else the browser's. */
export const startLanguage = () => supportedLanguage(sessionStorage.getItem(CHOSEN)) ?? browserLanguage();

/** `callback(language)` redraws the app once another language is loaded. */
export function whenLanguageChanges(callback: (language: string) => void) {
  redraw = callback;
}

/** Switches to `tag` (loading its messages) and redraws; `remember` keeps it for this tab. */
export async function switchLanguage(tag: string | null, { remember = true } = {}) {
  const language = supportedLanguage(tag) ?? browserLanguage();
  if (remember) sessionStorage.setItem(CHOSEN, language);
  const before = currentLanguage();
  // Asked even when it is the current one, so that a language still loading (the account's,
  // read at sign-in) does not replace this choice when it arrives. Drawn only if it changed and
  // no later choice took over meanwhile (that one draws its own).
  if ((await useLanguage(language)) === language && language !== before) redraw(language);
}

/** The account's language (GET /me `user.locale`): it wins over the browser's. */
export function followAccount(locale: string | null | undefined) {
  if (locale && supportedLanguage(locale) !== currentLanguage()) switchLanguage(locale);
}

/** The language menu in the header: stored on the account when signed in. */
export function LanguagePicker({ signedIn }: { signedIn: boolean }) {
  const choose = async (event: Event) => {
    const language = (event.currentTarget as HTMLSelectElement).value;
    if (signedIn && session.token) {
      const locale = supportedLanguage(language) as Body<'/api/v1/me', 'patch'>['locale'];
      await answer(api.PATCH('/api/v1/me', { body: { locale } })).catch(() => undefined);
    }
    await switchLanguage(language);
  };
  return html`<div class="language">
    <label for="language-choice" class="visually-hidden">${t('language.label')}</label>
    <select id="language-choice" class="small" value=${currentLanguage()} onChange=${choose}>
      ${LANGUAGES.map((l) => html`<option value=${l.tag} lang=${l.tag}>${l.name}</option>`)}
    </select>
  </div>`;
}
