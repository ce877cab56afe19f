// Review (managers): the values of a form and period across their sites; filter by status,
// approve or reject (with a comment) one value or a selection, and see a value's history.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorLines, get, post } from './api.js';
import { formatNumber, formatTime, periodCount, periodLabel, REVIEW_WORDS } from './format.js';
import { navigate } from './router.js';
import { Badge, Errors, Loading } from './ui.js';

const TONES = { COMPLETED: 'muted', APPROVED: 'good', REJECTED: 'bad' };

/** Every submission of the form and year on the person's sites (all pages). */
async function allSubmissions(formId, year) {
  const items = [];
  for (let offset = 0; ; offset += 100) {
    const page = await get('/form-submissions', { formId, year, limit: 100, offset });
    items.push(...page.items);
    if (!page.pagination.hasMore) return items;
  }
}

function describeValue(value, element, units) {
  if (value === null || value === undefined) return '—';
  if (element?.type === 'NUMBER') {
    const unit = units.find((u) => u.id === element.unitId)?.symbol ?? '';
    return `${formatNumber(value)}${unit ? ` ${unit}` : ''}`;
  }
  if (element?.type === 'ACTIVITY') return Array.isArray(value) ? `${value.length} activities` : 'activities';
  if (element?.type === 'FILE') return 'A file';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return formatNumber(value);
  return String(value);
}

export function Review({ query }) {
  const thisYear = new Date().getFullYear();
  const [forms, setForms] = useState(null);
  const [context, setContext] = useState(null);
  const [rows, setRows] = useState(null);
  const [errors, setErrors] = useState([]);
  const [selected, setSelected] = useState(new Set());
  const [comment, setComment] = useState('');
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState(null);
  const formId = query.get('form') ?? forms?.[0]?.id ?? '';
  const year = Number(query.get('year')) || thisYear;
  const period = Number(query.get('period')) || 1;
  const status = query.get('status') ?? '';
  const form = forms?.find((f) => f.id === formId);

  const setQuery = (change) => {
    const next = { form: formId, year, period, status, ...change };
    const params = new URLSearchParams(Object.entries(next).filter(([, v]) => v !== '' && v !== undefined));
    navigate(`/app/review?${params}`, { replace: true });
  };

  useEffect(() => {
    Promise.all([get('/forms'), get('/sites'), get('/units')])
      .then(([f, sites, units]) => {
        setForms(f);
        setContext({ sites: new Map(sites.map((s) => [s.id, s.name])), units });
      })
      .catch((error) => setErrors(errorLines(error)));
  }, []);

  // Only the latest load may show its rows (filters change faster than answers come back).
  const latest = useRef(0);
  const load = async () => {
    if (!form) return;
    const ticket = ++latest.current;
    const submissions = await allSubmissions(form.id, year);
    if (ticket !== latest.current) return;
    const elements = new Map(form.elements.map((e) => [e.id, e]));
    const found = submissions.flatMap((s) =>
      s.values
        .filter((v) => v.periodUnit === period && v.value !== null && !v.deletedAt)
        .map((v) => ({ ...v, siteId: s.siteId, element: elements.get(v.elementId) })),
    );
    found.sort(
      (a, b) =>
        (context.sites.get(a.siteId) ?? '').localeCompare(context.sites.get(b.siteId) ?? '') ||
        (a.element?.order ?? 0) - (b.element?.order ?? 0),
    );
    setRows(found);
  };
  useEffect(() => {
    setRows(null);
    setSelected(new Set());
    load().catch((error) => setErrors(errorLines(error)));
  }, [form?.id, year, period, context]);

  const review = async (ids, outcome) => {
    setErrors([]);
    setDone('');
    if (outcome === 'REJECTED' && !comment.trim()) {
      setErrors(['Write a comment saying what is wrong: the collector sees it beside the value.']);
      document.getElementById('review-comment')?.focus();
      return;
    }
    setBusy(true);
    try {
      for (const id of ids) {
        await post(`/form-submissions/values/${id}/review`, {
          status: outcome,
          ...(comment.trim() ? { comment: comment.trim() } : {}),
        });
      }
      setSelected(new Set());
      setComment('');
      await load();
      setDone(
        `${formatNumber(ids.length)} ${ids.length === 1 ? 'value' : 'values'} ${outcome === 'APPROVED' ? 'approved' : 'rejected'}.`,
      );
    } catch (error) {
      setErrors(errorLines(error));
    } finally {
      setBusy(false);
    }
  };

  if (!forms || !context)
    return html`<main id="main"><h1>Review</h1><${Errors} lines=${errors} /><${Loading} what="the forms" /></main>`;
  const shown = (rows ?? []).filter((r) => !status || r.status === status);
  const toggle = (id) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const allChecked = shown.length > 0 && shown.every((r) => selected.has(r.formElementSubmissionId));
  return html`<main id="main">
    <h1>Review</h1>
    <div class="toolbar">
      <div class="field"><label for="review-form">Form</label>
        <select id="review-form" value=${formId} onChange=${(e) => setQuery({ form: e.currentTarget.value, period: 1 })}>
          ${forms.map((f) => html`<option value=${f.id}>${f.name}</option>`)}
        </select></div>
      <div class="field"><label for="review-year">Year</label>
        <select id="review-year" value=${year} onChange=${(e) => setQuery({ year: e.currentTarget.value })}>
          ${[thisYear, thisYear - 1, thisYear - 2].map((y) => html`<option value=${y}>${y}</option>`)}
        </select></div>
      ${
        form && periodCount(form.periodType) > 1
          ? html`<div class="field"><label for="review-period">Period</label>
            <select id="review-period" value=${period} onChange=${(e) => setQuery({ period: e.currentTarget.value })}>
              ${Array.from({ length: periodCount(form.periodType) }, (_, i) => i + 1).map(
                (p) => html`<option value=${p}>${periodLabel(form.periodType, year, p)}</option>`,
              )}
            </select></div>`
          : null
      }
      <div class="field"><label for="review-status">Status</label>
        <select id="review-status" value=${status} onChange=${(e) => setQuery({ status: e.currentTarget.value })}>
          <option value="">All</option>
          ${Object.entries(REVIEW_WORDS).map(([value, word]) => html`<option value=${value}>${word}</option>`)}
        </select></div>
    </div>
    <div class="card review-actions">
      <div class="field"><label for="review-comment">Comment for the collector (required to reject)</label>
        <textarea id="review-comment" rows="2" value=${comment} onInput=${(e) => setComment(e.currentTarget.value)}></textarea></div>
      <div class="row-actions">
        <button type="button" disabled=${busy || selected.size === 0} onClick=${() => review([...selected], 'APPROVED')}>Approve selected (${selected.size})</button>
        <button type="button" class="danger" disabled=${busy || selected.size === 0} onClick=${() => review([...selected], 'REJECTED')}>Reject selected (${selected.size})</button>
      </div>
      <${Errors} lines=${errors} />
      <p class="saved" role="status" aria-live="polite">${done}</p>
    </div>
    ${rows === null ? html`<${Loading} what="the values" />` : null}
    ${rows && shown.length === 0 ? html`<p class="empty">No value ${status ? `with the status “${REVIEW_WORDS[status]}” ` : ''}for ${form ? periodLabel(form.periodType, year, period) : 'this period'}.</p>` : null}
    ${
      shown.length
        ? html`<div class="table-wrap"><table class="stack">
          <caption class="visually-hidden">Values of ${form.name}, ${periodLabel(form.periodType, year, period)}</caption>
          <thead><tr>
            <th scope="col"><input type="checkbox" id="review-all" aria-label="Select every value shown" checked=${allChecked}
              onChange=${() => setSelected(allChecked ? new Set() : new Set(shown.map((r) => r.formElementSubmissionId)))} /></th>
            <th scope="col">Site</th><th scope="col">Element</th><th scope="col">Value</th><th scope="col">Status</th>
            <th scope="col">Entered by</th><th scope="col">Actions</th>
          </tr></thead>
          <tbody>
            ${shown.map((r) => {
              const id = r.formElementSubmissionId;
              const name = `${r.element?.label ?? r.elementKey} at ${context.sites.get(r.siteId) ?? 'site'}`;
              return html`<tr data-value=${id}>
                <td data-label="Select"><input type="checkbox" id=${`pick-${id}`} aria-label=${`Select ${name}`} checked=${selected.has(id)} onChange=${() => toggle(id)} /></td>
                <td data-label="Site">${context.sites.get(r.siteId) ?? r.siteId}</td>
                <td data-label="Element">${r.element?.label ?? r.elementKey}</td>
                <td class="num" data-label="Value">${describeValue(r.value, r.element, context.units)}</td>
                <td data-label="Status"><${Badge} tone=${TONES[r.status]}>${REVIEW_WORDS[r.status]}<//></td>
                <td data-label="Entered by"><span>${r.userName || r.userEmail}<br /><span class="muted">${formatTime(r.recordedAt)}</span></span></td>
                <td class="actions" data-label="">
                  <button type="button" class="secondary small" disabled=${busy} aria-label=${`Approve ${name}`} onClick=${() => review([id], 'APPROVED')}>Approve</button>
                  <button type="button" class="secondary small danger-text" disabled=${busy} aria-label=${`Reject ${name}`} onClick=${() => review([id], 'REJECTED')}>Reject</button>
                  <button type="button" class="secondary small" aria-expanded=${open === id ? 'true' : 'false'} aria-label=${`History of ${name}`}
                    onClick=${() => setOpen(open === id ? null : id)}>History</button>
                  ${open === id ? html`<${History} id=${id} element=${r.element} units=${context.units} />` : null}
                </td>
              </tr>`;
            })}
          </tbody>
        </table></div>`
        : null
    }
  </main>`;
}

const ACTIONS = { CREATE: 'Entered', UPDATE: 'Changed', DELETE: 'Deleted', REVIEW: 'Reviewed' };

function History({ id, element, units }) {
  const [entries, setEntries] = useState(null);
  const [errors, setErrors] = useState([]);
  useEffect(() => {
    get(`/form-submissions/values/${id}/history`)
      .then(setEntries)
      .catch((error) => setErrors(errorLines(error)));
  }, [id]);
  if (errors.length) return html`<${Errors} lines=${errors} />`;
  if (!entries) return html`<${Loading} what="the history" />`;
  return html`<ol class="history">
    ${entries.map(
      (h) => html`<li>
        <strong>${ACTIONS[h.action] ?? h.action}</strong> by ${h.userName || h.userEmail}, ${formatTime(h.at)}:
        ${h.action === 'REVIEW' ? ` ${REVIEW_WORDS[h.after?.status] ?? ''}` : ` ${describeValue(h.after?.value ?? null, element, units)}`}
        ${h.comment ? html` <q>${h.comment}</q>` : null}
      </li>`,
    )}
  </ol>`;
}
