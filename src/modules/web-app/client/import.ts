// Import a workbook (managers): choose a source adapter, give the year and site the adapter takes
// from the request (when its mapping has no column for them), read an .xlsx or .csv in a Web Worker
// (sheets.js), preview (counts, and each row's outcome with its sheet row number), execute with an
// Idempotency-Key, confirm missing form-sites.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, errorLines, get } from './api.js';
import { formatNumber } from './format.js';
import { t } from './i18n/index.js';
import { Link } from './router.js';
import { MAX_FILE_BYTES, MAX_ROWS, MAX_UNPACKED_BYTES, megabytes } from './sheet-limits.js';
import { Errors, Loading } from './ui.js';

/** The counts of a preview or result, in this order (`import.count` names each). */
const COUNTS = ['total', 'parsed', 'ready', 'imported', 'reduced', 'skipped', 'failed'];

/** Rows listed in the tables (the counts above them cover every row). */
const LISTED = 1000;
/** Issues fetched per page, and at most this many pages. */
const ISSUE_PAGE = 1000;
const ISSUE_PAGES = 10;

const newKey = () => `web-${crypto.randomUUID()}`;
/** A reading problem (a ReadError's key and values, see sheet-limits.js) in the person's language. */
const readProblem = (error) => (error.key ? t(error.key, error.values) : error.message);

/**
 * What the adapter takes from the request rather than from a column: the year for the sheets
 * with neither a year column nor a date column, the site for the sheets without a site column.
 */
function requestFields(adapter) {
  const sheets = adapter?.mapping?.sheets ?? [];
  return {
    yearSheets: sheets.filter((s) => !s.year && !(s.period && 'dateColumn' in s.period)).map((s) => s.sheet),
    siteSheets: sheets.filter((s) => !s.site).map((s) => s.sheet),
    datedSheets: sheets.filter((s) => !s.year && s.period && 'dateColumn' in s.period).map((s) => s.sheet),
  };
}

const sheetList = (names) =>
  names.map((n) => (n === '*' ? t('import.everySheet') : t('import.quoted', { name: n }))).join(', ');

/** The year as typed, or an error message. */
function readYear(text) {
  const trimmed = text.trim();
  if (trimmed === '') return { error: t('import.yearMissing') };
  if (!/^\d{4}$/.test(trimmed)) return { error: t('import.yearDigits') };
  const year = Number(trimmed);
  if (year < 1900 || year > 2200) return { error: t('import.yearRange', { min: '1900', max: '2200' }) };
  return { year };
}

/**
 * Rows dated in another year than the one typed, in the sheets that take their period from a
 * date column but have no year column: the service files such rows under the typed year (its
 * `context.year` wins over the date's), so the screen stops before a date is silently moved.
 */
function datesOutsideYear(adapter, sheets, year) {
  const found = [];
  for (const m of adapter?.mapping?.sheets ?? []) {
    if (m.year || !(m.period && 'dateColumn' in m.period)) continue;
    for (const sheet of sheets ?? []) {
      if (m.sheet !== '*' && m.sheet !== sheet.name) continue;
      sheet.rows.forEach((row, index) => {
        const cell = row[m.period.dateColumn];
        const dated = typeof cell === 'string' ? /^(\d{4})-\d{2}/.exec(cell.trim()) : null;
        if (dated && Number(dated[1]) !== year)
          found.push({ sheet: sheet.name, index, year: Number(dated[1]) });
      });
    }
  }
  return found;
}

/** Every row issue of a run (a few pages of 1,000 at most). */
async function allIssues(runId) {
  const items = [];
  let total = 0;
  for (let page = 0; page < ISSUE_PAGES; page++) {
    const detail = await get(`/source-imports/${runId}`, { limit: ISSUE_PAGE, offset: page * ISSUE_PAGE });
    items.push(...detail.issues.items);
    total = detail.issues.pagination.total;
    if (!detail.issues.pagination.hasMore) break;
  }
  return { items, total };
}

export function Import() {
  const [adapters, setAdapters] = useState(null);
  const [adapterId, setAdapterId] = useState('');
  const [sites, setSites] = useState(null);
  const [yearText, setYearText] = useState('');
  const [siteId, setSiteId] = useState('');
  const [fieldErrors, setFieldErrors] = useState({});
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
  const reading = useRef(null);
  const yearInput = useRef(null);
  const siteInput = useRef(null);

  useEffect(() => {
    get('/source-adapter-definitions')
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
    get('/sites')
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

  const read = async (chosen, sheetName) => {
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
      if (!error.cancelled) setErrors([readProblem(error)]);
    } finally {
      if (reading.current === controller) {
        reading.current = null;
        setBusy('');
      }
    }
  };

  /** The `context` of the request, or null after marking the fields to correct. */
  const context = () => {
    const found = {};
    const problems = {};
    if (yearSheets.length) {
      const { year, error } = readYear(yearText);
      const outside = error ? [] : datesOutsideYear(adapter, sheets, year);
      if (error) problems.year = error;
      else if (outside.length) {
        const first = outside[0];
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
  const run = async (mode, allowMissing = false) => {
    const requestContext = context();
    if (!requestContext) return;
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
          ...(Object.keys(requestContext).length ? { context: requestContext } : {}),
          sheets,
        },
      });
      setIssues(await allIssues(answer.run.id));
      if (mode === 'preview') setPreview(answer);
      else setResult(answer);
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
        <select id="import-adapter" value=${adapterId} onChange=${(e) => {
          setAdapterId(e.currentTarget.value);
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
              onInput=${(e) => {
                setYearText(e.currentTarget.value);
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
              onChange=${(e) => {
                setSiteId(e.currentTarget.value);
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
          onChange=${(e) => {
            const f = e.currentTarget.files?.[0] ?? null;
            setFile(f);
            read(f, csvSheet);
          }} />
        <p class="hint" id="import-file-hint">${t('import.fileHint', { size: megabytes(MAX_FILE_BYTES), unpacked: megabytes(MAX_UNPACKED_BYTES), rows: MAX_ROWS })}</p>
      </div>
      ${
        isCsv
          ? html`<div class="field"><label for="import-csv-sheet">${t('import.csvSheet')}</label>
            <select id="import-csv-sheet" value=${csvSheet || mappedSheets[0]} onChange=${(e) => {
              setCsvSheet(e.currentTarget.value);
              read(file, e.currentTarget.value);
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
          <p class="check"><input id="import-confirm" type="checkbox" checked=${confirmMissing} onChange=${(e) => setConfirmMissing(e.currentTarget.checked)} />
            <label for="import-confirm">${t('import.confirmMissing')}</label></p>
          <button type="button" disabled=${!confirmMissing || Boolean(busy)} onClick=${() => run('execute', true)}>${busy === 'execute' ? t('import.importing') : t('import.importConfirmed')}</button>
        </section>`
        : null
    }
  </main>`;
}

/** The sheet's own row number of rows[index]: row 1 holds the column names. */
const sheetRow = (index) => index + 2;

function IssueTable({ issues }) {
  const listed = issues.items.slice(0, LISTED);
  const more = issues.total - listed.length;
  return html`<h3>${t('import.problemsTitle')}</h3>
    <div class="table-wrap" tabindex="0" role="region" aria-label=${t('import.problemsLabel')}><table>
      <thead><tr><th scope="col">${t('import.sheet')}</th><th scope="col">${t('import.row')}</th><th scope="col">${t('import.column')}</th><th scope="col">${t('import.problem')}</th></tr></thead>
      <tbody>${listed.map(
        (i) =>
          html`<tr><td>${i.sheet}</td><td class="num">${formatNumber(sheetRow(i.rowIndex))}</td><td>${i.column ?? ''}</td><td>${i.message}</td></tr>`,
      )}</tbody>
    </table></div>
    <p class="hint">${t('import.rowNumbers')}${more > 0 ? ` ${t('import.moreProblems', { count: more })}` : ''}</p>`;
}

const isEmptyRow = (row) => Object.values(row).every((v) => v === null || v === '');

/** Every row of the file with its sheet, its row number and what became of it. */
function RowResults({ sheets, issues, outcome }) {
  if (!sheets || !issues) return null;
  const problems = new Map();
  for (const i of issues.items) {
    const key = `${i.sheet}\u0000${i.rowIndex}`;
    problems.set(key, [...(problems.get(key) ?? []), i.column ? `${i.column}: ${i.message}` : i.message]);
  }
  const rows = sheets.flatMap((s) =>
    s.rows.map((row, index) => {
      const found = problems.get(`${s.name}\u0000${index}`);
      return {
        sheet: s.name,
        index,
        word: found
          ? t('import.outcome', { outcome: 'problem' })
          : isEmptyRow(row)
            ? t('import.outcome', { outcome: 'empty' })
            : outcome,
        detail: found?.join(' ') ?? '',
      };
    }),
  );
  const listed = rows.slice(0, LISTED);
  return html`<details class="row-results" open=${rows.length <= 50}>
    <summary>${t('import.everyRow', { count: rows.length })}</summary>
    <div class="table-wrap" tabindex="0" role="region" aria-label=${t('import.everyRowLabel')}><table>
      <caption class="visually-hidden">${t('import.everyRowCaption')}</caption>
      <thead><tr><th scope="col">${t('import.sheet')}</th><th scope="col">${t('import.row')}</th><th scope="col">${t('import.outcomeColumn')}</th><th scope="col">${t('import.details')}</th></tr></thead>
      <tbody>${listed.map(
        (r) =>
          html`<tr><td>${r.sheet}</td><td class="num">${formatNumber(sheetRow(r.index))}</td><td>${r.word}</td><td>${r.detail}</td></tr>`,
      )}</tbody>
    </table></div>
    ${rows.length > listed.length ? html`<p class="hint">${t('import.firstRows', { count: LISTED })}</p>` : null}
  </details>`;
}
