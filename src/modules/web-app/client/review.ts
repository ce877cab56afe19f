// Review (managers): opens on what awaits review across the person's forms and sites, oldest
// first (GET /form-submissions/values); filters by form, site, year, period and status; shows
// every value as a reviewer must check it (file link, activity rows, option labels, the latest
// review comment); approves or rejects one value, a selection, or everything the filters match
// (POST /form-submissions/values/review, all or nothing per call).
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorLines, get, post } from './api.js';
import { t } from './i18n/index.js';
import {
  periodsIn,
  periodWords,
  showBytes,
  showMoment,
  showNumber,
  VALUE_WORDS,
  valueWords,
} from './review-format.js';
import { navigate } from './router.js';
import { Badge, Errors, Loading } from './ui.js';

const TONES = { COMPLETED: 'muted', APPROVED: 'good', REJECTED: 'bad' };
const PAGE = 50;
/** The service's largest bulk review. */
const BULK = 500;

const queuePage = (filters, after, limit = PAGE) =>
  get('/form-submissions/values', { ...filters, limit, ...(after ? { after } : {}) });

/** Every value matching the filters (pages of 500), for "approve everything shown". */
async function everyMatch(filters) {
  const items = [];
  let after = null;
  do {
    const page = await queuePage(filters, after, BULK);
    items.push(...page.items);
    after = page.nextCursor;
  } while (after);
  return items;
}

export function Review({ query }) {
  const thisYear = new Date().getFullYear();
  const formId = query.get('form') ?? '';
  const siteId = query.get('site') ?? '';
  const year = query.get('year') ?? '';
  const period = query.get('period') ?? '';
  const status = query.has('status') ? query.get('status') : 'COMPLETED';

  const [context, setContext] = useState(null);
  const [list, setList] = useState(null);
  const [errors, setErrors] = useState([]);
  const [selected, setSelected] = useState(new Set());
  const [comment, setComment] = useState('');
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState(null);
  const [confirmAll, setConfirmAll] = useState(false);

  const setQuery = (change) => {
    const next = { form: formId, site: siteId, year, period, status, ...change };
    const params = new URLSearchParams(Object.entries(next).filter(([k, v]) => v !== '' || k === 'status'));
    if (next.status === 'COMPLETED') params.delete('status');
    navigate(`/app/review${params.size ? `?${params}` : ''}`, { replace: true });
  };

  useEffect(() => {
    Promise.all([get('/forms'), get('/sites'), get('/units')])
      .then(([forms, sites, units]) =>
        setContext({
          forms,
          formById: new Map(forms.map((f) => [f.id, f])),
          elements: new Map(forms.flatMap((f) => f.elements.map((e) => [e.id, e]))),
          sites: [...sites].sort((a, b) => a.name.localeCompare(b.name)),
          units: new Map(units.map((u) => [u.id, u])),
        }),
      )
      .catch((error) => setErrors(errorLines(error)));
  }, []);

  // The period filter needs one period type: the chosen form's, or the one all forms share.
  const types = new Set((context?.forms ?? []).map((f) => f.periodType));
  const periodType = formId
    ? context?.formById.get(formId)?.periodType
    : types.size === 1
      ? [...types][0]
      : null;
  const filters = {
    status,
    formId,
    siteId,
    year,
    periodUnit: periodType && period ? period : '',
  };

  // Only the latest load may show its rows (filters change faster than answers come back).
  const latest = useRef(0);
  const load = async () => {
    const ticket = ++latest.current;
    const page = await queuePage(filters, null);
    if (ticket === latest.current) setList(page);
  };
  const more = async () => {
    const ticket = latest.current;
    try {
      const page = await queuePage(filters, list.nextCursor);
      if (ticket === latest.current) setList({ ...page, items: [...list.items, ...page.items] });
    } catch (error) {
      setErrors(errorLines(error));
    }
  };
  useEffect(() => {
    setList(null);
    setSelected(new Set());
    setConfirmAll(false);
    load().catch((error) => setErrors(errorLines(error)));
  }, [formId, siteId, year, period, status]);

  const review = async (ids, outcome) => {
    setErrors([]);
    setDone('');
    if (outcome === 'REJECTED' && !comment.trim()) {
      setErrors([t('review.commentRequired')]);
      document.getElementById('review-comment')?.focus();
      return;
    }
    setBusy(true);
    try {
      let reviewed = 0;
      for (let i = 0; i < ids.length; i += BULK) {
        const result = await post('/form-submissions/values/review', {
          ids: ids.slice(i, i + BULK),
          status: outcome,
          ...(comment.trim() ? { comment: comment.trim() } : {}),
        });
        reviewed += result.reviewed + result.unchanged;
      }
      setSelected(new Set());
      setConfirmAll(false);
      setComment('');
      await load();
      setDone(t(outcome === 'APPROVED' ? 'review.doneApproved' : 'review.doneRejected', { count: reviewed }));
    } catch (error) {
      setErrors(errorLines(error));
    } finally {
      setBusy(false);
    }
  };
  const approveAll = async () => {
    setBusy(true);
    try {
      const ids = (await everyMatch(filters))
        .filter((i) => i.status !== 'APPROVED')
        .map((i) => i.formElementSubmissionId);
      setBusy(false);
      await review(ids, 'APPROVED');
    } catch (error) {
      setErrors(errorLines(error));
      setBusy(false);
    }
  };

  if (!context)
    return html`<main id="main"><h1>${t('nav.review')}</h1><${Errors} lines=${errors} /><${Loading} what=${t('loading.forms')} /></main>`;
  const items = list?.items ?? [];
  const toggle = (id) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const allChecked = items.length > 0 && items.every((r) => selected.has(r.formElementSubmissionId));
  const years = [thisYear + 1, thisYear, thisYear - 1, thisYear - 2, thisYear - 3];
  if (year && !years.includes(Number(year))) years.push(Number(year));
  const heading = t('review.heading', { status: status || 'ALL' });
  const periodShown = Boolean(filters.periodUnit);
  return html`<main id="main">
    <h1>${t('nav.review')}</h1>
    <div class="toolbar review-filters">
      <div class="field"><label for="review-status">${t('review.status')}</label>
        <select id="review-status" value=${status} onChange=${(e) => setQuery({ status: e.currentTarget.value })}>
          ${Object.entries(VALUE_WORDS).map(([value, word]) => html`<option value=${value}>${word}</option>`)}
          <option value="">${t('review.all')}</option>
        </select></div>
      <div class="field"><label for="review-form">${t('review.form')}</label>
        <select id="review-form" value=${formId} onChange=${(e) => setQuery({ form: e.currentTarget.value, period: '' })}>
          <option value="">${t('review.allForms')}</option>
          ${context.forms.map((f) => html`<option value=${f.id}>${f.name}</option>`)}
        </select></div>
      <div class="field"><label for="review-site">${t('nav.site')}</label>
        <select id="review-site" value=${siteId} onChange=${(e) => setQuery({ site: e.currentTarget.value })}>
          <option value="">${t('review.allSites')}</option>
          ${context.sites.map((s) => html`<option value=${s.id}>${s.name}</option>`)}
        </select></div>
      <div class="field"><label for="review-year">${t('home.year')}</label>
        <select id="review-year" value=${year} onChange=${(e) => setQuery({ year: e.currentTarget.value })}>
          <option value="">${t('review.allYears')}</option>
          ${years.sort((a, b) => b - a).map((y) => html`<option value=${y}>${y}</option>`)}
        </select></div>
      ${
        periodType && periodsIn(periodType) > 1
          ? html`<div class="field"><label for="review-period">${t('nav.period')}</label>
            <select id="review-period" value=${period} onChange=${(e) => setQuery({ period: e.currentTarget.value })}>
              <option value="">${t('review.allPeriods')}</option>
              ${Array.from({ length: periodsIn(periodType) }, (_, i) => i + 1).map(
                (p) => html`<option value=${p}>${periodWords(periodType, Number(year) || null, p)}</option>`,
              )}
            </select></div>`
          : null
      }
    </div>
    <div class="card review-actions">
      <div class="field"><label for="review-comment">${t('review.comment')}</label>
        <textarea id="review-comment" rows="2" value=${comment} onInput=${(e) => setComment(e.currentTarget.value)}></textarea></div>
      <div class="row-actions">
        <button type="button" disabled=${busy || selected.size === 0} onClick=${() => review([...selected], 'APPROVED')}>${t('review.approveSelected', { count: selected.size })}</button>
        <button type="button" class="danger" disabled=${busy || selected.size === 0} onClick=${() => review([...selected], 'REJECTED')}>${t('review.rejectSelected', { count: selected.size })}</button>
        ${
          list && list.total > 0 && status !== 'APPROVED' && !confirmAll
            ? html`<button type="button" class="secondary" disabled=${busy} onClick=${() => setConfirmAll(true)}>${t('review.approveAllShown', { count: list.total })}</button>`
            : null
        }
      </div>
      ${
        confirmAll
          ? html`<div class="confirm" role="group" aria-labelledby="confirm-all">
              <p id="confirm-all">${t('review.confirmAll', { count: list.total })}</p>
              <button type="button" class="confirm-button" disabled=${busy} onClick=${approveAll}>${t('review.approveCount', { count: list.total })}</button>
              <button type="button" class="secondary confirm-button" onClick=${() => setConfirmAll(false)}>${t('review.cancel')}</button>
            </div>`
          : null
      }
      <${Errors} lines=${errors} />
      <p class="saved" role="status" aria-live="polite">${done}</p>
    </div>
    <h2 class="review-heading">${heading}${list ? html` <span class="muted">(${showNumber(list.total)})</span>` : null}</h2>
    ${list === null ? html`<${Loading} what=${t('loading.values')} />` : null}
    ${list && items.length === 0 ? html`<p class="empty">${t(status === 'COMPLETED' ? 'review.emptyAwaiting' : 'review.emptyFilters')}</p>` : null}
    ${
      items.length
        ? html`<div class="table-wrap"><table class="stack review-table">
          <caption class="visually-hidden">${t('review.caption', { heading })}</caption>
          <thead><tr>
            <th scope="col"><input type="checkbox" id="review-all" aria-label=${t('review.selectAll')} checked=${allChecked}
              onChange=${() => setSelected(allChecked ? new Set() : new Set(items.map((r) => r.formElementSubmissionId)))} /></th>
            <th scope="col">${t('review.where')}</th><th scope="col">${t('review.element')}</th><th scope="col">${t('field.value')}</th><th scope="col">${t('review.status')}</th>
            <th scope="col">${t('review.enteredBy')}</th><th scope="col">${t('review.actions')}</th>
          </tr></thead>
          <tbody>
            ${items.map((r) => {
              const id = r.formElementSubmissionId;
              const element = context.elements.get(r.elementId);
              const when = periodWords(r.periodType, r.year, r.periodUnit);
              const name = periodShown
                ? t('review.valueName', { element: r.elementLabel, site: r.siteName })
                : t('review.valueNameWhen', { element: r.elementLabel, site: r.siteName, period: when });
              return html`<tr data-value=${id}>
                <td data-label=${t('review.select')}><input type="checkbox" id=${`pick-${id}`} aria-label=${t('review.selectOne', { name })} checked=${selected.has(id)} onChange=${() => toggle(id)} /></td>
                <td data-label=${t('review.where')}><span>${r.siteName}<br /><span class="muted">${r.formName} · ${when}</span></span></td>
                <td data-label=${t('review.element')}>${r.elementLabel}</td>
                <td data-label=${t('field.value')} class="value-cell"><${ValueShown} item=${r} element=${element} units=${context.units} /></td>
                <td data-label=${t('review.status')}><${StatusShown} item=${r} /></td>
                <td data-label=${t('review.enteredBy')}><span>${r.userName || r.userEmail}<br /><span class="muted">${showMoment(r.recordedAt)}</span></span></td>
                <td class="actions" data-label="">
                  ${r.status !== 'APPROVED' ? html`<button type="button" class="secondary small" disabled=${busy} aria-label=${t('review.approveOne', { name })} onClick=${() => review([id], 'APPROVED')}>${t('review.approve')}</button>` : null}
                  ${r.status !== 'REJECTED' ? html`<button type="button" class="secondary small danger-text" disabled=${busy} aria-label=${t('review.rejectOne', { name })} onClick=${() => review([id], 'REJECTED')}>${t('review.reject')}</button>` : null}
                  <button type="button" class="secondary small" aria-expanded=${open === id ? 'true' : 'false'} aria-label=${t('review.historyOf', { name })}
                    onClick=${() => setOpen(open === id ? null : id)}>${t('review.history')}</button>
                  ${open === id ? html`<${History} id=${id} item=${r} element=${element} units=${context.units} />` : null}
                </td>
              </tr>`;
            })}
          </tbody>
        </table></div>`
        : null
    }
    ${
      list?.nextCursor
        ? html`<p><button type="button" class="secondary" onClick=${more}>${t('review.showMore', { count: list.total - items.length })}</button></p>`
        : null
    }
  </main>`;
}

/** The status badge and the latest review's comment (also one made before the value was entered again). */
function StatusShown({ item }) {
  const last = item.lastReview;
  return html`<span class="status-cell">
    <${Badge} tone=${TONES[item.status]}>${VALUE_WORDS[item.status]}<//>
    ${
      last?.comment
        ? html`<span class="last-review">
            ${item.status === 'COMPLETED' ? `${t('review.enteredAgain', { status: last.status })} ` : ''}<q>${last.comment}</q>
            <span class="muted"> ${last.userName}, ${showMoment(last.at)}</span>
          </span>`
        : null
    }
  </span>`;
}

function ValueShown({ item, element, units }) {
  if (item.elementType === 'FILE') return html`<${FileShown} item=${item} />`;
  if (item.elementType === 'ACTIVITY') return html`<${ActivitiesShown} item=${item} element=${element} />`;
  const entered =
    item.elementType === 'NUMBER' && item.selectedUnitId && typeof item.originalValue === 'number'
      ? ` ${t('review.enteredAs', { value: showNumber(item.originalValue), unit: units.get(item.selectedUnitId)?.symbol ?? '' })}`
      : '';
  return html`<span class="num">${valueWords(item, element, units)}</span>${entered ? html`<span class="muted">${entered}</span>` : null}`;
}

/** A FILE value: its name and size, and a link that downloads it (a signed URL, asked for again once expired). */
function FileShown({ item }) {
  const [media, setMedia] = useState(null);
  const [error, setError] = useState('');
  const fetchMedia = () =>
    get(`/media/${item.file.mediaId}`)
      .then((m) => {
        setMedia(m);
        return m;
      })
      .catch((e) => setError(errorLines(e).join(' ')));
  useEffect(() => {
    if (item.file) fetchMedia();
  }, [item.file?.mediaId]);
  if (!item.file) return html`<span class="muted">${t('review.fileGone')}</span>`;
  const size = item.file.size === null ? t('review.uploadNotFinished') : showBytes(item.file.size);
  const follow = async (event) => {
    if (media?.downloadUrlExpiresAt && Date.parse(media.downloadUrlExpiresAt) > Date.now() + 5000) return;
    event.preventDefault();
    const fresh = await fetchMedia();
    if (fresh?.downloadUrl) location.assign(fresh.downloadUrl);
  };
  return html`<span class="file-value">
    ${
      media?.downloadUrl
        ? html`<a class="file-link" href=${media.downloadUrl} download=${item.file.fileName} onClick=${follow}>${item.file.fileName}</a>`
        : html`<span>${item.file.fileName}</span>`
    }
    <span class="muted"> (${size})</span>
    ${error ? html`<span class="field-error"> ${error}</span>` : null}
  </span>`;
}

/** An ACTIVITY value: how many activities, expanding to their inputs and calculated values with the unit and the total. */
function ActivitiesShown({ item, element }) {
  const [open, setOpen] = useState(false);
  const [data, setData] = useState(null);
  const [error, setError] = useState('');
  const count = item.activityCount;
  const toggle = async () => {
    setOpen(!open);
    if (data || open) return;
    try {
      const [page, definition] = await Promise.all([
        get('/activities', {
          formId: item.formId,
          key: item.elementKey,
          siteIds: item.siteId,
          years: item.year,
          periodUnits: item.periodUnit,
          limit: 1000,
        }),
        element?.activityDefinitionId ? get(`/activity-definitions/${element.activityDefinitionId}`) : null,
      ]);
      setData({ rows: page.activities, definition });
    } catch (e) {
      setError(errorLines(e).join(' '));
    }
  };
  const rowsId = `activities-${item.formElementSubmissionId}`;
  return html`<span class="activities-value">
    <button type="button" class="secondary small" aria-expanded=${open ? 'true' : 'false'} aria-controls=${rowsId} onClick=${toggle}>
      ${t('review.activities', { count })}
      <span class="visually-hidden"> ${t('review.activitiesOf', { element: item.elementLabel, site: item.siteName })}</span>
    </button>
    <div id=${rowsId} hidden=${!open}>
      ${open && error ? html`<p class="field-error">${error}</p>` : null}
      ${open && !data && !error ? html`<${Loading} what=${t('loading.activities')} />` : null}
      ${open && data ? html`<${ActivityTable} rows=${data.rows} definition=${data.definition} label=${item.elementLabel} />` : null}
    </div>
  </span>`;
}

function ActivityTable({ rows, definition, label }) {
  if (rows.length === 0) return html`<p class="muted">${t('review.noActivity')}</p>`;
  const inputs = definition?.inputs ?? Object.keys(rows[0].input).map((name) => ({ name }));
  const unit = rows[0].unit ?? definition?.unitSymbol ?? '';
  const withUnit = (n) => `${showNumber(n)}${unit ? ` ${unit}` : ''}`;
  const shown = (input, v) => {
    if (v === null || v === undefined) return '—';
    const option = input.editor?.options?.find((o) => o.value === v);
    if (option) return option.label;
    if (typeof v === 'number') return showNumber(v);
    if (typeof v === 'boolean') return v ? t('field.yes') : t('field.no');
    return String(v);
  };
  // Summed in the order shown; the service keeps each value as a double too.
  const total = rows.reduce((sum, r) => sum + r.value, 0);
  return html`<table class="activity-rows">
    <caption class="visually-hidden">${t('review.activitiesCaption', { label })}</caption>
    <thead><tr>
      ${inputs.map((i) => html`<th scope="col">${i.exportName ?? i.name}</th>`)}
      <th scope="col" class="num">${unit ? t('review.calculatedIn', { unit }) : t('review.calculated')}</th>
    </tr></thead>
    <tbody>
      ${rows.map(
        (r) => html`<tr>
          ${inputs.map((i) => html`<td>${shown(i, r.input[i.name])}</td>`)}
          <td class="num">${withUnit(r.value)}</td>
        </tr>`,
      )}
    </tbody>
    <tfoot><tr>
      <th scope="row" colspan=${inputs.length}>${t('review.total')}</th>
      <td class="num">${withUnit(total)}</td>
    </tr></tfoot>
  </table>`;
}

function History({ id, item, element, units }) {
  const [entries, setEntries] = useState(null);
  const [errors, setErrors] = useState([]);
  useEffect(() => {
    get(`/form-submissions/values/${id}/history`)
      .then(setEntries)
      .catch((error) => setErrors(errorLines(error)));
  }, [id]);
  if (errors.length) return html`<${Errors} lines=${errors} />`;
  if (!entries) return html`<${Loading} what=${t('loading.history')} />`;
  const plain = (value) =>
    item.elementType === 'FILE' || item.elementType === 'ACTIVITY'
      ? ''
      : ` ${valueWords({ ...item, value }, element, units)}`;
  return html`<ol class="history">
    ${entries.map(
      (h) => html`<li>
        <strong>${t('review.action', { action: h.action })}</strong> ${t('review.historyBy', { name: h.userName || h.userEmail, time: showMoment(h.at) })}
        ${h.action === 'REVIEW' ? ` ${VALUE_WORDS[h.after?.status] ?? ''}` : plain(h.after?.value ?? null)}
        ${h.comment ? html` <q>${h.comment}</q>` : null}
      </li>`,
    )}
  </ol>`;
}
