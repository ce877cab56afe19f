import { html } from 'htm/preact';
export function Review() {
  return html`<main id="main"><h1>Review</h1></main>`;
}
