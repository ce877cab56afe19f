import { html } from 'htm/preact';
export function Import() {
  return html`<main id="main"><h1>Import a workbook</h1></main>`;
}
