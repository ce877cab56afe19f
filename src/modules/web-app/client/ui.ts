// Small pieces shared by the screens.
import { html } from 'htm/preact';
import { t } from './i18n/index.js';

/** Errors, announced to screen readers as they appear. */
export function Errors({ lines, id }) {
  return html`<div class="errors" role="alert" aria-live="assertive" id=${id}>
    ${lines?.length ? html`<ul>${lines.map((line) => html`<li>${line}</li>`)}</ul>` : null}
  </div>`;
}

export function Loading({ what }) {
  return html`<p class="status" role="status">${t('loading', { what })}</p>`;
}

/** A status word in a coloured badge (the word carries the meaning, not the colour). */
export function Badge({ tone, children }) {
  return html`<span class=${`badge badge-${tone}`}>${children}</span>`;
}
