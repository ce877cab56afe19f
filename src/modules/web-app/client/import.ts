// Import a workbook (managers): choose a source adapter, give the year and site the adapter takes
// from the request (when its mapping has no column for them), read an .xlsx or .csv in a Web Worker
// (sheets.js), preview (counts, and each row's outcome with its sheet row number), execute with an
// Idempotency-Key, confirm missing form-sites.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { answer, api, errorLines } from './api.js';
import type { Adapter, ImportAnswer, ImportIssue, Site } from './api-shapes.js';
import { formatNumber } from './format.js';
import { t } from './i18n/index.js';
import {
  allIssues,
  datesOutsideYear,
  newKey,
  readProblem,
  readYear,
  requestFields,
  sheetList,
} from './import-request.js';
import { IssueTable, RowResults, sheetRow } from './import-results.js';
import { Link } from './router.js';
import { MAX_FILE_BYTES, MAX_ROWS, MAX_UNPACKED_BYTES, megabytes } from './sheet-limits.js';
import { Errors, inputChecked, inputValue, Loading } from './ui.js';
import type { Sheets } from './workbook-reader.js';

/** The counts of a preview or result, in this order (`import.count` names each). */
const COUNTS: (keyof ImportAnswer['counts'])[] = [
  'total',
  'parsed',
  'ready',
  'imported',
  'reduced',
  'skipped',
  'failed',
];

export function Import() {
  const [adapters, setAdapters] = useState<Adapter[] | null>(null);
  const [adapterId, setAdapterId] = useState('');
  const [sites, setSites] = useState<Site[] | null>(null);
  const [yearText, setYearText] = useState('');
  const [siteId, setSiteId] = useState('');
  const [fieldErrors, setFieldErrors] = useState<{ year?: string; site?: string }>({});
  const [file, setFile] = useState<File | null>(null);
  const [csvSheet, setCsvSheet] = useState('');
  const [sheets, setSheets] = useState<Sheets | null>(null);
  const [preview, setPreview] = useState<ImportAnswer | null>(null);
  const [issues, setIssues] = useState<{ items: ImportIssue[]; total: number } | null>(null);
  const [result, setResult] = useState<ImportAnswer | null>(null);
  const [confirmMissing, setConfirmMissing] = useState(false);
  const [keys, setKeys] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState('');
  const reading = useRef<AbortController | null>(null);
  const yearInput = useRef<HTMLInputElement>(null);
  const siteInput = useRef<HTMLSelectElement>(null);

  useEffect(() => {
    answer(api.GET('/api/v1/source-adapter-definitions'))
      .then((list) => {
        setAdapters(list);
        setAdapterId(list[0]?.id ?? '');
      })
      .catch((error) => setErrors(errorLines(error)));
    return () => reading.current?.abort();
  }, []);

  const adapter = adapters?.find((a) => a.id === adapterId);
  const mappedSheets = (adapter?.mapping?.sheets ?? []).map((s) => s.sheet).filter(Boolean);
  const { yearSheets, siteSheets, datedSheets } = requestFields(adapter);

  useEffect(() => {
    if (!siteSheets.length || sites) return;
    answer(api.GET('/api/v1/sites'))
      .then(setSites)
      .catch((error) => setErrors(errorLines(error)));
  }, [adapterId, siteSheets.length > 0]);

  /** Forgets the preview and result (and their keys): the next request is a new import. */
  const resetRun = () => {
    setPreview(null);
    setIssues(null);
    setResult(null);
    setConfirmMissing(false);
    setKeys({});
  };

  const read = async (chosen: File | null, sheetName: string) => {
    reading.current?.abort();
    setSheets(null);
    resetRun();
    setErrors([]);
    if (!chosen) return;
    const controller = new AbortController();
    reading.current = controller;
    setBusy('read');
    try {
      const { readWorkbook } = await import('./sheets.js');
      const found = await readWorkbook(chosen, {
        csvSheetName: sheetName || mappedSheets[0] || 'Sheet1',
        sheetNames: mappedSheets.includes('*') ? null : mappedSheets,
        signal: controller.signal,
      });
      if (!found.length) {
        throw new Error(
          mappedSheets.includes('*')
            ? t('import.noSheet')
            : t('import.noMappedSheet', { sheets: sheetList(mappedSheets) }),
        );
      }
      setSheets(found);
    } catch (error) {
      if (!(error as { cancelled?: boolean }).cancelled) setErrors([readProblem(error)]);
    } finally {
      if (reading.current === controller) {
        reading.current = null;
        setBusy('');
      }
    }
  };

  /** The `context` of the request, or null after marking the fields to correct. */
  const context = () => {
    const found: { year?: number; siteId?: string } = {};
    const problems: { year?: string; site?: string } = {};
    if (yearSheets.length) {
      const { year, error } = readYear(yearText);
      const outside = error !== undefined ? [] : datesOutsideYear(adapter, sheets, year);
      const first = outside[0];
      if (error !== undefined) problems.year = error;
      else if (first) {
        problems.year = t('import.datedOutside', {
          row: sheetRow(first.index),
          sheet: first.sheet,
          dated: String(first.year),
          typed: String(year),
          others: outside.length - 1,
        });
      } else found.year = year;
    }
    if (siteSheets.length) {
      if (siteId) found.siteId = siteId;
      else problems.site = t('import.siteMissing');
    }
    setFieldErrors(problems);
    if (problems.year) yearInput.current?.focus();
    else if (problems.site) siteInput.current?.focus();
    return Object.keys(problems).length ? null : found;
  };

  /** POST /source-imports; one key per (mode, confirmation), kept for retries of the same body. */
  const run = async (mode: 'preview' | 'execute', allowMissing = false) => {
    const requestContext = context();
    if (!requestContext || !adapter || !sheets) return;
    const slot = `${mode}:${allowMissing}`;
    const key = keys[slot] ?? newKey();
    setKeys((k) => ({ ...k, [slot]: key }));
    setBusy(mode);
    setErrors([]);
    try {
      const done = await answer(
        api.POST('/api/v1/source-imports', {
          params: { header: { 'idempotency-key': key } },
          body: {
            sourceAdapterDefinitionId: adapter.id,
            adapterVersion: adapter.adapterVersion,
            mode,
            ...(allowMissing ? { allowMissingFormSiteCreation: true } : {}),
            ...(Object.keys(requestContext).length ? { context: requestContext } : {}),
            sheets,
          },
        }),
      );
      // Without `Prefer: respond-async` the service answers the import itself (200), never 202.
      if (!('counts' in done)) throw new Error(t('error.unknown'));
      setIssues(await allIssues(done.run.id));
      if (mode === 'preview') setPreview(done);
      else setResult(done);
    } catch (error) {
      setErrors(errorLines(error));
    } finally {
      setBusy('');
    }
  };

  if (!adapters)
    return html`<main id="main"><h1>${t('import.title')}</h1><${Errors} lines=${errors} /><${Loading} what=${t('loading.adapters')} /></main>`;
  if (!adapters.length) {
    return html`<main id="main"><h1>${t('import.title')}</h1>
      <p class="empty">${t('import.noAdapter')}</p></main>`;
  }
  const shown = result ?? preview;
  const readiness = result?.execution?.readiness;
  const blocked = result?.execution?.blocked;
  const isCsv = file && /\.csv$/i.test(file.name);
  return html`<main id="main">
    <h1>${t('import.title')}</h1>
    <section class="card" aria-labelledby="import-file-title">
      <h2 id="import-file-title">${t('import.step1')}</h2>
      <div class="field"><label for="import-adapter">${t('import.adapter')}</label>
        <select id="import-adapter" value=${adapterId} onChange=${(e: Event) => {
          setAdapterId(inputValue(e));
          setFieldErrors({});
          setSheets(null);
          resetRun();
        }}>
          ${adapters.map((a) => html`<option value=${a.id}>${a.name}</option>`)}
        </select>
        ${adapter?.description ? html`<p class="hint">${adapter.description}</p>` : null}
        ${mappedSheets.length ? html`<p class="hint">${t('import.readsSheets', { sheets: mappedSheets.join(', ') })}</p>` : null}
      </div>
      ${
        yearSheets.length
          ? html`<div class="field"><label for="import-year">${t('import.year')}</label>
            <input id="import-year" ref=${yearInput} type="number" min="1900" max="2200" step="1" autocomplete="off"
              value=${yearText} aria-invalid=${fieldErrors.year ? 'true' : undefined}
              aria-describedby=${fieldErrors.year ? 'import-year-hint import-year-error' : 'import-year-hint'}
              onInput=${(e: Event) => {
                setYearText(inputValue(e));
                setFieldErrors((f) => ({ ...f, year: undefined }));
                resetRun();
              }} />
            <p class="hint" id="import-year-hint">${t('import.yearHint', { sheets: sheetList(yearSheets) })}${datedSheets.length ? ` ${t('import.yearHintDated', { sheets: sheetList(datedSheets) })}` : ''}</p>
            ${fieldErrors.year ? html`<p class="field-error" id="import-year-error">${fieldErrors.year}</p>` : null}
          </div>`
          : null
      }
      ${
        siteSheets.length
          ? html`<div class="field"><label for="import-site">${t('import.site')}</label>
            <select id="import-site" ref=${siteInput} value=${siteId} aria-invalid=${fieldErrors.site ? 'true' : undefined}
              aria-describedby=${fieldErrors.site ? 'import-site-hint import-site-error' : 'import-site-hint'}
              onChange=${(e: Event) => {
                setSiteId(inputValue(e));
                setFieldErrors((f) => ({ ...f, site: undefined }));
                resetRun();
              }}>
              <option value="">${t('import.chooseSite')}</option>
              ${(sites ?? []).map((s) => html`<option value=${s.id}>${s.name}${s.code ? ` (${s.code})` : ''}</option>`)}
            </select>
            <p class="hint" id="import-site-hint">${t('import.siteHint', { sheets: sheetList(siteSheets) })}</p>
            ${fieldErrors.site ? html`<p class="field-error" id="import-site-error">${fieldErrors.site}</p>` : null}
          </div>`
          : null
      }
      <div class="field"><label for="import-file">${t('import.file')}</label>
        <input id="import-file" type="file" accept=".xlsx,.csv" aria-describedby="import-file-hint"
          onChange=${(e: Event) => {
            const f = (e.currentTarget as HTMLInputElement).files?.[0] ?? null;
            setFile(f);
            read(f, csvSheet);
          }} />
        <p class="hint" id="import-file-hint">${t('import.fileHint', { size: megabytes(MAX_FILE_BYTES), unpacked: megabytes(MAX_UNPACKED_BYTES), rows: MAX_ROWS })}</p>
      </div>
      ${
        isCsv
          ? html`<div class="field"><label for="import-csv-sheet">${t('import.csvSheet')}</label>
            <select id="import-csv-sheet" value=${csvSheet || mappedSheets[0]} onChange=${(e: Event) => {
              setCsvSheet(inputValue(e));
              read(file, inputValue(e));
            }}>
              ${mappedSheets.map((s) => html`<option value=${s}>${s}</option>`)}
            </select></div>`
          : null
      }
      ${
        busy === 'read'
          ? html`<p class="status" role="status">${t('import.reading')} <button type="button" class="secondary small" onClick=${() => reading.current?.abort()}>${t('import.stopReading')}</button></p>`
          : null
      }
      ${
        sheets
          ? html`<p role="status">${t('import.read', { sheets: sheets.map((s) => t('import.sheetRows', { name: s.name, count: s.rows.length })).join(', ') })}</p>
            <button type="button" disabled=${Boolean(busy)} onClick=${() => run('preview')}>${busy === 'preview' ? t('import.checking') : t('import.preview')}</button>`
          : null
      }
    </section>
    <${Errors} lines=${errors} />
    ${
      shown
        ? html`<section class="card" aria-labelledby="import-preview-title" aria-live="polite">
          <h2 id="import-preview-title">${result ? t('import.step3') : t('import.step2')}</h2>
          <ul class="counts">
            ${COUNTS.map((key) => html`<li><strong>${formatNumber(shown.counts[key])}</strong>${t('import.count', { key })}</li>`)}
          </ul>
          ${result && !blocked ? html`<p class="saved">${t('import.imported', { values: result.run.formValueWriteCount, activities: result.run.activityWriteCount })} <${Link} href="/app">${t('import.openReporting')}<//></p>` : null}
          ${result?.execution?.message ? html`<p>${result.execution.message}</p>` : null}
          ${issues?.items.length ? html`<${IssueTable} issues=${issues} />` : html`<p>${t('import.noProblem')}</p>`}
          ${
            result
              ? null
              : shown.counts.ready === 0
                ? html`<p><strong>${t('import.nothingReady')}</strong> ${t('import.correctRows')}</p>`
                : html`<p><button type="button" disabled=${Boolean(busy)} onClick=${() => run('execute')}>
                  ${busy === 'execute' ? t('import.importing') : t('import.importReady', { count: shown.counts.ready })}</button></p>`
          }
          <${RowResults} sheets=${sheets} issues=${issues} outcome=${t('import.outcome', { outcome: result ? (blocked ? 'waiting' : 'imported') : 'ready' })} />
        </section>`
        : null
    }
    ${
      blocked && readiness?.requiresMissingFormSiteConfirmation
        ? html`<section class="card attention" aria-labelledby="import-missing-title">
          <h2 id="import-missing-title">${t('import.missingTitle')}</h2>
          <p>${t('import.missingText')}</p>
          <div class="table-wrap"><table>
            <thead><tr><th scope="col">${t('review.form')}</th><th scope="col">${t('nav.site')}</th><th scope="col">${t('home.year')}</th><th scope="col">${t('import.rows')}</th></tr></thead>
            <tbody>${readiness.missingFormSites.map(
              (m) =>
                html`<tr><td>${m.formName}</td><td>${m.siteName ?? t('import.hiddenSite')}</td><td>${m.year}</td><td class="num">${formatNumber(m.rowCount)}</td></tr>`,
            )}</tbody>
          </table></div>
          <p class="check"><input id="import-confirm" type="checkbox" checked=${confirmMissing} onChange=${(e: Event) => setConfirmMissing(inputChecked(e))} />
            <label for="import-confirm">${t('import.confirmMissing')}</label></p>
          <button type="button" disabled=${!confirmMissing || Boolean(busy)} onClick=${() => run('execute', true)}>${busy === 'execute' ? t('import.importing') : t('import.importConfirmed')}</button>
        </section>`
        : null
    }
  </main>`;
}
