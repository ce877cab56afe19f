// Import a workbook (managers): choose a source adapter, read an .xlsx or .csv in the browser,
// preview (counts and row issues), execute with an Idempotency-Key, confirm missing form-sites.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call, errorLines, get } from './api.js';
import { formatNumber } from './format.js';
import { Link } from './router.js';
import { Errors, Loading } from './ui.js';

const COUNT_WORDS = {
  total: 'Rows',
  parsed: 'Read',
  ready: 'Ready',
  imported: 'Imported',
  reduced: 'Combined',
  skipped: 'Skipped (empty)',
  failed: 'With problems',
};

const newKey = () => `web-${crypto.randomUUID()}`;

export function Import() {
  const [adapters, setAdapters] = useState(null);
  const [adapterId, setAdapterId] = useState('');
  const [file, setFile] = useState(null);
  const [csvSheet, setCsvSheet] = useState('');
  const [sheets, setSheets] = useState(null);
  const [preview, setPreview] = useState(null);
  const [issues, setIssues] = useState(null);
  const [result, setResult] = useState(null);
  const [confirmMissing, setConfirmMissing] = useState(false);
  const [keys, setKeys] = useState({});
  const [errors, setErrors] = useState([]);
  const [busy, setBusy] = useState('');

  useEffect(() => {
    get('/source-adapter-definitions')
      .then((list) => {
        setAdapters(list);
        setAdapterId(list[0]?.id ?? '');
      })
      .catch((error) => setErrors(errorLines(error)));
  }, []);

  const adapter = adapters?.find((a) => a.id === adapterId);
  const mappedSheets = (adapter?.mapping?.sheets ?? []).map((s) => s.sheet).filter(Boolean);
  const reset = () => {
    setSheets(null);
    setPreview(null);
    setIssues(null);
    setResult(null);
    setConfirmMissing(false);
    setKeys({});
  };

  const read = async (chosen, sheetName) => {
    reset();
    setErrors([]);
    if (!chosen) return;
    setBusy('read');
    try {
      const { readWorkbook } = await import('./sheets.js');
      const read = await readWorkbook(chosen, sheetName || mappedSheets[0] || 'Sheet1');
      if (!read.length) throw new Error('The file has no sheet with a header row.');
      setSheets(read);
    } catch (error) {
      setErrors([`The file could not be read: ${error.message}`]);
    } finally {
      setBusy('');
    }
  };

  /** POST /source-imports; one key per (mode, confirmation), kept for retries of the same body. */
  const run = async (mode, allowMissing = false) => {
    const slot = `${mode}:${allowMissing}`;
    const key = keys[slot] ?? newKey();
    setKeys((k) => ({ ...k, [slot]: key }));
    setBusy(mode);
    setErrors([]);
    try {
      const answer = await call('POST', '/source-imports', {
        headers: { 'idempotency-key': key },
        body: {
          sourceAdapterDefinitionId: adapter.id,
          adapterVersion: adapter.adapterVersion,
          mode,
          ...(allowMissing ? { allowMissingFormSiteCreation: true } : {}),
          sheets,
        },
      });
      const detail = await get(`/source-imports/${answer.run.id}`, { limit: 200 });
      setIssues(detail.issues);
      if (mode === 'preview') setPreview(answer);
      else setResult(answer);
    } catch (error) {
      setErrors(errorLines(error));
    } finally {
      setBusy('');
    }
  };

  if (!adapters)
    return html`<main id="main"><h1>Import a workbook</h1><${Errors} lines=${errors} /><${Loading} what="the source adapters" /></main>`;
  if (!adapters.length) {
    return html`<main id="main"><h1>Import a workbook</h1>
      <p class="empty">No source adapter is defined yet. An adapter says which sheet and column go to which form element; create one through the API (POST /source-adapter-definitions).</p></main>`;
  }
  const shown = result ?? preview;
  const readiness = result?.execution?.readiness;
  const blocked = result?.execution?.blocked;
  const isCsv = file && /\.csv$/i.test(file.name);
  return html`<main id="main">
    <h1>Import a workbook</h1>
    <section class="card" aria-labelledby="import-file-title">
      <h2 id="import-file-title">1. Choose the adapter and the file</h2>
      <div class="field"><label for="import-adapter">Source adapter</label>
        <select id="import-adapter" value=${adapterId} onChange=${(e) => {
          setAdapterId(e.currentTarget.value);
          reset();
        }}>
          ${adapters.map((a) => html`<option value=${a.id}>${a.name}</option>`)}
        </select>
        ${adapter?.description ? html`<p class="hint">${adapter.description}</p>` : null}
        ${mappedSheets.length ? html`<p class="hint">Reads the sheets: ${mappedSheets.join(', ')}.</p>` : null}
      </div>
      <div class="field"><label for="import-file">Workbook (.xlsx) or CSV file</label>
        <input id="import-file" type="file" accept=".xlsx,.csv"
          onChange=${(e) => {
            const f = e.currentTarget.files?.[0] ?? null;
            setFile(f);
            read(f, csvSheet);
          }} />
      </div>
      ${
        isCsv
          ? html`<div class="field"><label for="import-csv-sheet">This CSV file is the sheet</label>
            <select id="import-csv-sheet" value=${csvSheet || mappedSheets[0]} onChange=${(e) => {
              setCsvSheet(e.currentTarget.value);
              read(file, e.currentTarget.value);
            }}>
              ${mappedSheets.map((s) => html`<option value=${s}>${s}</option>`)}
            </select></div>`
          : null
      }
      ${busy === 'read' ? html`<p class="status" role="status">Reading the file…</p>` : null}
      ${
        sheets
          ? html`<p role="status">Read ${sheets.map((s) => `${s.name} (${formatNumber(s.rows.length)} ${s.rows.length === 1 ? 'row' : 'rows'})`).join(', ')}.</p>
            <button type="button" disabled=${Boolean(busy)} onClick=${() => run('preview')}>${busy === 'preview' ? 'Checking…' : 'Preview the import'}</button>`
          : null
      }
    </section>
    <${Errors} lines=${errors} />
    ${
      shown
        ? html`<section class="card" aria-labelledby="import-preview-title" aria-live="polite">
          <h2 id="import-preview-title">${result ? '3. Result' : '2. Preview: nothing is written yet'}</h2>
          <ul class="counts">
            ${Object.entries(COUNT_WORDS).map(([key, word]) => html`<li><strong>${formatNumber(shown.counts[key])}</strong>${word}</li>`)}
          </ul>
          ${result && !blocked ? html`<p class="saved">Imported: ${formatNumber(result.run.formValueWriteCount)} values and ${formatNumber(result.run.activityWriteCount)} activities written. <${Link} href="/app">Open My reporting<//></p>` : null}
          ${result?.execution?.message ? html`<p>${result.execution.message}</p>` : null}
          ${issues?.items.length ? html`<${IssueTable} issues=${issues} />` : html`<p>No row has a problem.</p>`}
          ${
            result
              ? null
              : shown.counts.ready === 0
                ? html`<p><strong>Nothing is ready to import.</strong> Correct the rows listed above in the file, then choose it again.</p>`
                : html`<button type="button" disabled=${Boolean(busy)} onClick=${() => run('execute')}>
                  ${busy === 'execute' ? 'Importing…' : `Import the ${formatNumber(shown.counts.ready)} ready ${shown.counts.ready === 1 ? 'row' : 'rows'}`}</button>`
          }
        </section>`
        : null
    }
    ${
      blocked && readiness?.requiresMissingFormSiteConfirmation
        ? html`<section class="card attention" aria-labelledby="import-missing-title">
          <h2 id="import-missing-title">Confirm: some forms are not active on these sites</h2>
          <p>Nothing was imported. These rows are for a form that is not active on the site for the year.
            Importing them makes the form active there.</p>
          <div class="table-wrap"><table>
            <thead><tr><th scope="col">Form</th><th scope="col">Site</th><th scope="col">Year</th><th scope="col">Rows</th></tr></thead>
            <tbody>${readiness.missingFormSites.map(
              (m) =>
                html`<tr><td>${m.formName}</td><td>${m.siteName ?? m.siteId}</td><td>${m.year}</td><td class="num">${formatNumber(m.rowCount)}</td></tr>`,
            )}</tbody>
          </table></div>
          <p class="check"><input id="import-confirm" type="checkbox" checked=${confirmMissing} onChange=${(e) => setConfirmMissing(e.currentTarget.checked)} />
            <label for="import-confirm">Make these forms active on these sites and import all the rows</label></p>
          <button type="button" disabled=${!confirmMissing || Boolean(busy)} onClick=${() => run('execute', true)}>${busy === 'execute' ? 'Importing…' : 'Import with the confirmation'}</button>
        </section>`
        : null
    }
  </main>`;
}

function IssueTable({ issues }) {
  const more = issues.pagination.total - issues.items.length;
  return html`<h3>Rows with a problem (they are not imported)</h3>
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Sheet</th><th scope="col">Row</th><th scope="col">Column</th><th scope="col">Problem</th></tr></thead>
      <tbody>${issues.items.map(
        (i) =>
          html`<tr><td>${i.sheet}</td><td class="num">${formatNumber(i.rowIndex + 2)}</td><td>${i.column ?? ''}</td><td>${i.message}</td></tr>`,
      )}</tbody>
    </table></div>
    <p class="hint">Row numbers are those of the spreadsheet (row 1 holds the column names).${more > 0 ? ` ${formatNumber(more)} more problems are not listed.` : ''}</p>`;
}
