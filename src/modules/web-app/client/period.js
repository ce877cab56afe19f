// Enter a period: every element of the form for one site and period, saved in one
// POST /form-submissions; the service's issues shown beside their fields, nothing typed lost.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorLines, get, post, uploadFile } from './api.js';
import {
  formatBytes,
  formatDate,
  formatNumber,
  formatTime,
  periodLabel,
  REVIEW_WORDS,
  STATUS_WORDS,
} from './format.js';
import { changedValues, draftsFrom, loadPeriod, placeIssues } from './period-data.js';
import { Link } from './router.js';
import { Badge, Errors, Loading } from './ui.js';

const REVIEW_TONES = { COMPLETED: 'muted', APPROVED: 'good', REJECTED: 'bad' };

export function EnterPeriod({ formId, siteId, year, periodUnit }) {
  const [data, setData] = useState(null);
  const [drafts, setDrafts] = useState(null);
  const [original, setOriginal] = useState(null);
  const [loadErrors, setLoadErrors] = useState([]);
  const [issues, setIssues] = useState({ byKey: {}, general: [] });
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(null);

  // Only the latest load may fill the screen (the person may move to another period meanwhile).
  const latest = useRef(0);
  const load = async () => {
    const ticket = ++latest.current;
    const loaded = await loadPeriod({ formId, siteId, year, periodUnit });
    if (ticket !== latest.current) return;
    const fresh = draftsFrom(loaded);
    setData(loaded);
    setDrafts(fresh);
    setOriginal(fresh);
  };
  useEffect(() => {
    setData(null);
    setLoadErrors([]);
    load().catch((error) => setLoadErrors(errorLines(error)));
  }, [formId, siteId, year, periodUnit]);

  if (loadErrors.length) return html`<main id="main"><${Back} /><${Errors} lines=${loadErrors} /></main>`;
  if (!data) return html`<main id="main"><${Loading} what="the period" /></main>`;

  const { form, site, period, lock } = data;
  const locked = Boolean(lock) || Boolean(period?.locked);
  const title = periodLabel(form.periodType, year, periodUnit);
  const update = (key, change) => {
    setSaved(null);
    setDrafts((all) => ({ ...all, [key]: { ...all[key], ...change } }));
  };

  const save = async (event) => {
    event.preventDefault();
    setSaving(true);
    setSaved(null);
    setIssues({ byKey: {}, general: [] });
    const { values, targets } = changedValues(data, drafts, original, periodUnit);
    const markers = form.elements.filter(
      (e) => e.type === 'ACTIVITY' && drafts[e.key].noActivity !== original[e.key].noActivity,
    );
    try {
      if (values.length === 0 && markers.length === 0) {
        setSaved('Nothing changed since the last save.');
        return;
      }
      if (values.length) await post('/form-submissions', { formId, siteId, year, values });
      for (const element of markers) {
        const body = { formId, key: element.key, siteId, year, periodUnit };
        const marked = drafts[element.key].noActivity && drafts[element.key].rows.length === 0;
        await post(`/activities/no-activity/${marked ? 'mark' : 'unmark'}`, body);
      }
      await load();
      setSaved(`Saved at ${formatTime(new Date().toISOString())}.`);
    } catch (error) {
      if (error.status === 400 && error.issues.length) {
        setIssues(placeIssues(error.issues, targets));
        // Take the keyboard to the first field to correct (after the screen shows the errors).
        requestAnimationFrame(() => document.querySelector('[aria-invalid="true"]')?.focus());
      } else {
        setIssues({ byKey: {}, general: errorLines(error) });
      }
    } finally {
      setSaving(false);
    }
  };

  const problemCount = Object.values(issues.byKey).reduce((n, list) => n + list.length, 0);
  return html`<main id="main" class="period-screen">
    <${Back} year=${year} />
    <h1>${form.name}: ${title}</h1>
    <p class="subtitle">
      <span>${site?.siteName ?? 'Site'}</span>
      ${period ? html` · <${Badge} tone=${period.status === 'COMPLETE' || period.status === 'NO_ACTIVITY' ? 'good' : period.status === 'PARTIAL' ? 'warn' : 'bad'}>${STATUS_WORDS[period.status]}<//>` : null}
      ${period?.dueAt ? html` · due ${formatDate(period.dueAt)}` : null}
      ${period?.overdue ? html` · <${Badge} tone="bad">Late<//>` : null}
    </p>
    ${locked ? html`<${LockNotice} lock=${lock} form=${form} year=${year} />` : null}
    <form onSubmit=${save} novalidate>
      <fieldset disabled=${locked || saving} class=${`elements${locked ? ' locked' : ''}`}>
        <legend class="visually-hidden">Values for ${title}</legend>
        ${form.elements.map(
          (element) => html`<${ElementField} element=${element} data=${data} draft=${drafts[element.key]}
            issues=${issues.byKey[element.key] ?? []} update=${(change) => update(element.key, change)}
            context=${{ formId, siteId, year, periodUnit }} />`,
        )}
      </fieldset>
      <div class="save-bar" hidden=${locked}>
        <div class="messages">
          <${Errors} id="save-errors" lines=${[
            ...(problemCount
              ? [
                  `Nothing was saved: ${problemCount === 1 ? 'one value needs' : `${problemCount} values need`} a correction (shown beside ${problemCount === 1 ? 'the field' : 'their fields'}).`,
                ]
              : []),
            ...issues.general,
          ]} />
          <p class="saved" role="status" aria-live="polite">${saved ?? ''}</p>
        </div>
        ${locked ? null : html`<button type="submit" disabled=${saving}>${saving ? 'Saving…' : 'Save'}</button>`}
      </div>
    </form>
  </main>`;
}

function Back({ year }) {
  return html`<p class="back"><${Link} href=${year ? `/app?year=${year}` : '/app'}>← My reporting<//></p>`;
}

function LockNotice({ lock, form, year }) {
  const scope = lock
    ? `${lock.periodUnit === null ? `the whole year ${year}` : periodLabel(form.periodType, year, lock.periodUnit)}${lock.siteName ? ` at ${lock.siteName}` : ' for every site'}`
    : 'this period';
  return html`<div class="lock" role="note">
    <strong>This period is locked: it can be read but not changed.</strong>
    ${lock ? html`<p>Locked by ${lock.createdByName} on ${formatDate(lock.createdAt)} (lock of ${scope}). Ask them to unlock it if a value must change.</p>` : null}
  </div>`;
}

function unitSymbol(units, id) {
  return units.find((u) => u.id === id)?.symbol ?? '';
}

function ElementField({ element, data, draft, issues, update, context }) {
  const id = `el-${element.key}`;
  const errorId = `${id}-error`;
  const stored = data.values.filter((v) => v.elementId === element.id);
  const fieldIssues = issues.filter((i) => i.row === undefined || element.type === 'TIMESTAMP');
  const invalid = fieldIssues.length > 0;
  const described = {
    'aria-invalid': invalid ? 'true' : undefined,
    'aria-describedby': invalid ? errorId : undefined,
  };
  const unit = element.unitId ? unitSymbol(data.units, element.unitId) : '';
  const label = html`<label for=${id}>${element.label}${unit ? html` <span class="unit">(${unit})</span>` : null}${element.required ? html` <span class="required">required</span>` : null}</label>`;
  let control;
  switch (element.type) {
    case 'NUMBER':
      control = html`<${NumberInput} id=${id} element=${element} data=${data} draft=${draft} update=${update} described=${described} />`;
      break;
    case 'TEXT':
      control = html`<textarea id=${id} rows="2" value=${draft.text} onInput=${(e) => update({ text: e.currentTarget.value })} ...${described}></textarea>`;
      break;
    case 'BOOLEAN':
      control = html`<select id=${id} value=${draft.text} onChange=${(e) => update({ text: e.currentTarget.value })} ...${described}>
        <option value="">Not answered</option><option value="true">Yes</option><option value="false">No</option>
      </select>`;
      break;
    case 'SELECT':
      control = html`<select id=${id} value=${draft.text} onChange=${(e) => update({ text: e.currentTarget.value })} ...${described}>
        <option value="">Choose…</option>
        ${(element.options ?? []).map((o) => html`<option value=${o.value}>${o.label}</option>`)}
      </select>`;
      break;
    case 'DATE':
      control = html`<input id=${id} type="date" value=${draft.text} onInput=${(e) => update({ text: e.currentTarget.value })} ...${described} />`;
      break;
    case 'TIMESTAMP':
      control = html`<${TimestampRows} id=${id} draft=${draft} update=${update} />`;
      break;
    case 'FILE':
      control = html`<${FileInput} id=${id} element=${element} draft=${draft} update=${update} context=${context} described=${described} />`;
      break;
    case 'ACTIVITY':
      control = html`<${ActivityRows} id=${id} element=${element} data=${data} draft=${draft} update=${update} issues=${issues} />`;
      break;
    default:
      control = html`<p class="muted">This kind of element (${element.type}) cannot be entered here.</p>`;
  }
  const grouped = element.type === 'ACTIVITY' || element.type === 'TIMESTAMP';
  return html`<div class=${`element type-${element.type.toLowerCase()}${invalid ? ' has-error' : ''}`} data-key=${element.key}>
    ${grouped ? html`<h2 class="element-title" id=${`${id}-title`}>${element.label}${element.required ? html` <span class="required">required</span>` : null}</h2>` : label}
    ${control}
    ${invalid ? html`<p class="field-error" id=${errorId}>${fieldIssues.map((i) => html`<span>${i.message} </span>`)}</p>` : null}
    ${stored.length && element.type !== 'TIMESTAMP' ? html`<${ReviewLine} value=${stored[0]} review=${data.reviews.get(stored[0].formElementSubmissionId)} element=${element} data=${data} />` : null}
  </div>`;
}

function ReviewLine({ value, review, element, data }) {
  const converted =
    element.type === 'NUMBER' && value.selectedUnitId && value.selectedUnitId !== element.unitId
      ? html` · stored as ${formatNumber(value.value)} ${unitSymbol(data.units, element.unitId)}`
      : null;
  return html`<p class="review">
    <${Badge} tone=${REVIEW_TONES[value.status]}>${REVIEW_WORDS[value.status]}<//>
    <span class="muted"> ${value.status === 'COMPLETED' ? 'by' : '· entered by'} ${value.userName || value.userEmail}, ${formatTime(value.recordedAt)}${converted}</span>
    ${review ? html`<span class="review-comment"> ${REVIEW_WORDS[value.status]} by ${review.userName}${review.comment ? `: “${review.comment}”` : ''}</span>` : null}
  </p>`;
}

function NumberInput({ id, element, data, draft, update, described }) {
  const base = data.units.find((u) => u.id === element.unitId);
  const choices = base ? data.units.filter((u) => u.dimension === base.dimension) : [];
  return html`<div class="number-row">
    <input id=${id} type="text" inputmode="decimal" autocomplete="off" value=${draft.text}
      onInput=${(e) => update({ text: e.currentTarget.value })} ...${described} />
    ${
      choices.length > 1
        ? html`<span class="unit-picker"><label for=${`${id}-unit`}>Unit</label>
          <select id=${`${id}-unit`} value=${draft.unitId} onChange=${(e) => update({ unitId: e.currentTarget.value })}>
            ${choices.map((u) => html`<option value=${u.id}>${u.symbol}</option>`)}
          </select></span>`
        : null
    }
  </div>`;
}

function TimestampRows({ id, draft, update }) {
  const setRow = (index, change) =>
    update({ rows: draft.rows.map((r, i) => (i === index ? { ...r, ...change } : r)) });
  return html`<div class="rows" role="group" aria-labelledby=${`${id}-title`}>
    ${draft.rows.map(
      (row, index) => html`<div class="row-card">
        <div class="field"><label for=${`${id}-${index}-at`}>Date and time</label>
          <input id=${`${id}-${index}-at`} type="datetime-local" value=${row.at} onInput=${(e) => setRow(index, { at: e.currentTarget.value })} /></div>
        <div class="field"><label for=${`${id}-${index}-value`}>Value</label>
          <input id=${`${id}-${index}-value`} type="text" inputmode="decimal" value=${row.text} onInput=${(e) => setRow(index, { text: e.currentTarget.value })} /></div>
        <button type="button" class="secondary small" onClick=${() => update({ rows: draft.rows.filter((_, i) => i !== index) })}>Remove reading ${index + 1}</button>
      </div>`,
    )}
    <button type="button" class="secondary add-row" onClick=${() => update({ rows: [...draft.rows, { at: '', text: '' }] })}>Add a reading</button>
  </div>`;
}

function FileInput({ id, element, draft, update, context, described }) {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState([]);
  const [link, setLink] = useState(null);
  useEffect(() => {
    setLink(null);
    if (!draft.mediaId) return;
    get(`/media/${draft.mediaId}`)
      .then((m) => setLink(m.downloadUrl))
      .catch(() => setLink(null));
  }, [draft.mediaId]);
  const choose = async (event) => {
    const file = event.currentTarget.files?.[0];
    if (!file) return;
    setBusy(true);
    setErrors([]);
    try {
      const entityId = `${context.formId}/${context.siteId}/${context.year}/${context.periodUnit}`;
      const mediaId = await uploadFile(file, { entityId, fieldName: element.key });
      update({ mediaId, fileName: file.name, size: file.size });
    } catch (error) {
      setErrors(errorLines(error));
    } finally {
      setBusy(false);
      event.target.value = '';
    }
  };
  return html`<div class="file">
    ${
      draft.mediaId
        ? html`<p class="file-name">
            <span>${draft.fileName}${draft.size ? ` (${formatBytes(draft.size)})` : ''}</span>
            ${link ? html` <a href=${link} target="_blank" rel="noopener">Download</a>` : null}
            <button type="button" class="secondary small" onClick=${() => update({ mediaId: null, fileName: null, size: null })}>Remove file</button>
          </p>`
        : null
    }
    <input id=${id} type="file" onChange=${choose} ...${described} />
    ${busy ? html`<p class="status" role="status">Uploading…</p>` : null}
    <${Errors} lines=${errors} />
  </div>`;
}

function ActivityRows({ id, element, data, draft, update, issues }) {
  const definition = data.definitions.get(element.key);
  const listed = data.activities.get(element.key).activities;
  const setRow = (index, name, text) =>
    update({ rows: draft.rows.map((r, i) => (i === index ? { ...r, [name]: text } : r)), noActivity: false });
  const emptyRow = () => Object.fromEntries(definition.inputs.map((input) => [input.name, '']));
  const unchanged = JSON.stringify(draft.rows) === JSON.stringify(draftsFrom(data)[element.key].rows);
  return html`<div class="rows" role="group" aria-labelledby=${`${id}-title`}>
    ${definition.description ? html`<p class="muted">${definition.description}</p>` : null}
    ${draft.rows.map((row, index) => {
      const rowIssues = issues.filter((i) => i.row === index);
      const calculated = unchanged ? listed[index] : null;
      return html`<div class=${`row-card${rowIssues.length ? ' has-error' : ''}`} data-row=${index}>
        <p class="row-title">${definition.name} ${index + 1}</p>
        <div class="row-fields">
          ${definition.inputs.map(
            (input) => html`<${ActivityInput} id=${`${id}-${index}-${input.name}`} input=${input}
            text=${row[input.name] ?? ''} onText=${(text) => setRow(index, input.name, text)}
            error=${rowIssues.find((i) => i.input === input.name)} />`,
          )}
        </div>
        ${rowIssues.filter((i) => !definition.inputs.some((input) => input.name === i.input)).map((i) => html`<p class="field-error">${i.message}</p>`)}
        ${calculated ? html`<p class="calculated">Calculated value: <strong>${formatNumber(calculated.value)}</strong></p>` : null}
        <button type="button" class="secondary small" onClick=${() => update({ rows: draft.rows.filter((_, i) => i !== index) })}>Remove ${definition.name} ${index + 1}</button>
      </div>`;
    })}
    <div class="row-actions">
      <button type="button" class="secondary" onClick=${() => update({ rows: [...draft.rows, emptyRow()], noActivity: false })}>Add ${definition.name}</button>
      ${
        draft.rows.length === 0
          ? html`<span class="check"><input id=${`${id}-none`} type="checkbox" checked=${draft.noActivity}
              onChange=${(e) => update({ noActivity: e.currentTarget.checked })} />
              <label for=${`${id}-none`}>No activity this period</label></span>`
          : null
      }
    </div>
    ${listed.length && unchanged ? html`<p class="calculated">Total: <strong>${formatNumber(listed.reduce((s, a) => s + a.value, 0))}</strong></p>` : null}
  </div>`;
}

function ActivityInput({ id, input, text, onText, error }) {
  const errorId = `${id}-error`;
  const attrs = {
    id,
    'aria-invalid': error ? 'true' : undefined,
    'aria-describedby': error ? errorId : undefined,
  };
  let control;
  if (input.editor?.type === 'select') {
    control = html`<select ...${attrs} value=${text} onChange=${(e) => onText(e.currentTarget.value)}>
      <option value="">Choose…</option>
      ${input.editor.options.map((o) => html`<option value=${o.value}>${o.label}</option>`)}
    </select>`;
  } else if (input.type === 'boolean') {
    control = html`<select ...${attrs} value=${text} onChange=${(e) => onText(e.currentTarget.value)}>
      <option value="">Not answered</option><option value="true">Yes</option><option value="false">No</option>
    </select>`;
  } else if (input.type === 'date') {
    control = html`<input ...${attrs} type="date" value=${text} onInput=${(e) => onText(e.currentTarget.value)} />`;
  } else {
    control = html`<input ...${attrs} type="text" inputmode=${input.type === 'number' ? 'decimal' : undefined}
      placeholder=${input.example ?? ''} value=${text} onInput=${(e) => onText(e.currentTarget.value)} />`;
  }
  return html`<div class="field">
    <label for=${id}>${humanize(input.name)}${input.required ? html` <span class="required">required</span>` : null}</label>
    ${control}
    ${error ? html`<p class="field-error" id=${errorId}>${error.message}</p>` : null}
  </div>`;
}

/** An input's name as people read it: `litres_used` -> "Litres used". */
const humanize = (name) => {
  const words = name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};
