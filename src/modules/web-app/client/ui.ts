// Small pieces shared by the screens.
import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { t } from './i18n/index.js';

/** Errors, announced to screen readers as they appear. */
export function Errors({ lines, id }: { lines?: string[] | null; id?: string }) {
  return html`<div class="errors" role="alert" aria-live="assertive" id=${id}>
    ${lines?.length ? html`<ul>${lines.map((line) => html`<li>${line}</li>`)}</ul>` : null}
  </div>`;
}

export function Loading({ what }: { what: string }) {
  return html`<p class="status" role="status">${t('loading', { what })}</p>`;
}

/** A status word in a coloured badge (the word carries the meaning, not the colour). */
export function Badge({ tone, children }: { tone: string; children?: ComponentChildren }) {
  return html`<span class=${`badge badge-${tone}`}>${children}</span>`;
}

/** The value of the input, select or text area an event came from. */
export const inputValue = (event: Event) => (event.currentTarget as HTMLInputElement).value;
/** Whether the checkbox an event came from is checked. */
export const inputChecked = (event: Event) => (event.currentTarget as HTMLInputElement).checked;
