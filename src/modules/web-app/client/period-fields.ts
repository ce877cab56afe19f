// The fields of the entry screen, one per form element: the value as typed, what the service will
// store (read in the person's locale, in the element's unit), the checks beside the field, the
// comment an outlier asks for, and the reviewer's word on a stored value.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { errorLines, get, isOffline, uploadFile } from './api.js';
import { CustomRow, hasCustomForm } from './custom-form/host.js';
import { formatBytes, formatNumber, formatTime, REVIEW_WORDS } from './format.js';
import { t, textOf } from './i18n/index.js';
import { formatExact, readNumber } from './numbers.js';
import { isPendingFile, keepFile } from './offline/outbox.js';
import { offlineTexts } from './offline/texts.js';
import { draftsFrom } from './period-data.js';
import { outlierText, toStored, unitById, unitName } from './rules.js';
import { Badge, Errors } from './ui.js';

const REVIEW_TONES = { COMPLETED: 'muted', APPROVED: 'good', REJECTED: 'bad' };

/** One element of the form; `onLeave` is called when the keyboard leaves any of its controls. */
export function ElementField({ element, data, draft, changed, issues, update, context, onLeave }) {
  const id = `el-${element.key}`;
  const errorId = `${id}-error`;
  const stored = data.values.filter((v) => v.elementId === element.id);
  const outliers = issues.filter((i) => i.type === 'outlier');
  const errors = issues.filter((i) => i.type !== 'outlier');
  const fieldIssues = errors.filter((i) => i.row === undefined || element.type === 'TIMESTAMP');
  const invalid = fieldIssues.length > 0;
  const described = {
    'aria-invalid': invalid ? 'true' : undefined,
    'aria-describedby': invalid ? errorId : undefined,
  };
  const unit = element.unitId ? unitName(unitById(data.units, element.unitId)) : '';
  const label = html`<label for=${id}>${textOf(element, 'label')}${unit ? html` <span class="unit">(${unit})</span>` : null}${element.required ? html` <span class="required">${t('field.required')}</span>` : null}</label>`;
  const help = textOf(element, 'helpText');
  let control;
  switch (element.type) {
    case 'NUMBER':
      control = html`<${NumberInput} id=${id} element=${element} data=${data} draft=${draft} update=${update} described=${described} locale=${context.locale} show=${changed && !invalid} />`;
      break;
    case 'TEXT':
      control = html`<textarea id=${id} rows="2" value=${draft.text} onInput=${(e) => update({ text: e.currentTarget.value })} ...${described}></textarea>`;
      break;
    case 'BOOLEAN':
      control = html`<select id=${id} value=${draft.text} onChange=${(e) => update({ text: e.currentTarget.value })} ...${described}>
        <option value="">${t('field.notAnswered')}</option><option value="true">${t('field.yes')}</option><option value="false">${t('field.no')}</option>
      </select>`;
      break;
    case 'SELECT':
      control = html`<select id=${id} value=${draft.text} onChange=${(e) => update({ text: e.currentTarget.value })} ...${described}>
        <option value="">${t('field.choose')}</option>
        ${(element.options ?? []).map((o) => html`<option value=${o.value}>${textOf(o, 'label')}</option>`)}
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
      control = html`<${ActivityRows} id=${id} element=${element} data=${data} draft=${draft} update=${update} issues=${errors} locale=${context.locale} />`;
      break;
    default:
      control = html`<p class="muted">${t('field.unknownType', { type: element.type })}</p>`;
  }
  const grouped = element.type === 'ACTIVITY' || element.type === 'TIMESTAMP';
  const rejected = stored[0]?.status === 'REJECTED';
  return html`<div class=${`element type-${element.type.toLowerCase()}${invalid ? ' has-error' : ''}${rejected ? ' rejected' : ''}`}
    data-key=${element.key} onFocusOut=${onLeave}>
    ${grouped ? html`<h2 class="element-title" id=${`${id}-title`}>${textOf(element, 'label')}${element.required ? html` <span class="required">${t('field.required')}</span>` : null}</h2>` : label}
    ${help ? html`<p class="hint">${help}</p>` : null}
    ${control}
    ${invalid ? html`<p class="field-error" id=${errorId}>${fieldIssues.map((i) => html`<span>${i.message} </span>`)}</p>` : null}
    ${outliers.length ? html`<${OutlierComment} id=${id} element=${element} outliers=${outliers} draft=${draft} update=${update} context=${context} />` : null}
    ${stored.length && element.type !== 'TIMESTAMP' ? html`<${ReviewLine} value=${stored[0]} review=${data.reviews.get(stored[0].formElementSubmissionId)} element=${element} data=${data} />` : null}
  </div>`;
}

function ReviewLine({ value, review, element, data }) {
  const converted =
    element.type === 'NUMBER' && value.selectedUnitId && value.selectedUnitId !== element.unitId
      ? html` · ${t('field.storedAs', { value: formatNumber(value.value), unit: unitName(unitById(data.units, element.unitId)) })}`
      : null;
  return html`<p class="review">
    <${Badge} tone=${REVIEW_TONES[value.status]}>${REVIEW_WORDS[value.status]}<//>
    <span class="muted"> ${t(value.status === 'COMPLETED' ? 'field.by' : 'field.enteredBy', { name: value.userName || value.userEmail, time: formatTime(value.recordedAt) })}${converted}</span>
    ${review ? html`<span class="review-comment"> ${t(review.comment ? 'field.reviewedComment' : 'field.reviewed', { status: REVIEW_WORDS[value.status], name: review.userName, comment: review.comment })}</span>` : null}
    ${value.status === 'REJECTED' ? html`<span class="to-correct">${t('field.correct')}</span>` : null}
  </p>`;
}

function NumberInput({ id, element, data, draft, update, described, locale, show }) {
  const base = unitById(data.units, element.unitId);
  const choices = base ? data.units.filter((u) => u.dimension === base.dimension) : [];
  const read = readNumber(draft.text, locale);
  // Only for a changed value, and not while the field shows an error (it would not be saved).
  const will = show && read.value !== null && read.value !== undefined ? `${id}-will` : null;
  const describedBy = [described['aria-describedby'], will].filter(Boolean).join(' ') || undefined;
  return html`<div class="number-row">
    <input id=${id} type="text" inputmode="decimal" autocomplete="off" value=${draft.text}
      onInput=${(e) => update({ text: e.currentTarget.value })} ...${described} aria-describedby=${describedBy} />
    ${
      choices.length > 1
        ? html`<span class="unit-picker"><label for=${`${id}-unit`}>${t('field.unit')}</label>
          <select id=${`${id}-unit`} value=${draft.unitId} onChange=${(e) => update({ unitId: e.currentTarget.value })}>
            ${choices.map((u) => html`<option value=${u.id}>${unitName(u)}</option>`)}
          </select></span>`
        : null
    }
  </div>
  ${will ? html`<${WillStore} id=${will} text=${draft.text} typedUnit=${unitById(data.units, draft.unitId) ?? base} base=${base} locale=${locale} />` : null}`;
}

function TimestampRows({ id, draft, update }) {
  const setRow = (index, change) =>
    update({ rows: draft.rows.map((r, i) => (i === index ? { ...r, ...change } : r)) });
  return html`<div class="rows" role="group" aria-labelledby=${`${id}-title`}>
    ${draft.rows.map(
      (row, index) => html`<div class="row-card">
        <div class="field"><label for=${`${id}-${index}-at`}>${t('field.dateTime')}</label>
          <input id=${`${id}-${index}-at`} type="datetime-local" value=${row.at} onInput=${(e) => setRow(index, { at: e.currentTarget.value })} /></div>
        <div class="field"><label for=${`${id}-${index}-value`}>${t('field.value')}</label>
          <input id=${`${id}-${index}-value`} type="text" inputmode="decimal" value=${row.text} onInput=${(e) => setRow(index, { text: e.currentTarget.value })} /></div>
        <button type="button" class="secondary small" onClick=${() => update({ rows: draft.rows.filter((_, i) => i !== index) })}>${t('field.removeReading', { number: index + 1 })}</button>
      </div>`,
    )}
    <button type="button" class="secondary add-row" onClick=${() => update({ rows: [...draft.rows, { at: '', text: '' }] })}>${t('field.addReading')}</button>
  </div>`;
}

function FileInput({ id, element, draft, update, context, described }) {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState([]);
  const [link, setLink] = useState(null);
  useEffect(() => {
    setLink(null);
    if (!draft.mediaId || isPendingFile(draft.mediaId)) return;
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
      // Offline: the file waits on this device and is uploaded when the period is sent.
      if (isOffline(error)) {
        const entityId = `${context.formId}/${context.siteId}/${context.year}/${context.periodUnit}`;
        const mediaId = await keepFile(file, entityId, element.key).catch(() => null);
        if (mediaId) return update({ mediaId, fileName: file.name, size: file.size });
      }
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
            ${link ? html` <a href=${link} target="_blank" rel="noopener">${t('field.download')}</a>` : null}
            ${isPendingFile(draft.mediaId) ? html` <span class="muted">${offlineTexts.fileWaits(draft.fileName)}</span>` : null}
            <button type="button" class="secondary small" onClick=${() => update({ mediaId: null, fileName: null, size: null })}>${t('field.removeFile')}</button>
          </p>`
        : null
    }
    <input id=${id} type="file" onChange=${choose} ...${described} />
    ${busy ? html`<p class="status" role="status">${t('field.uploading')}</p>` : null}
    <${Errors} lines=${errors} />
  </div>`;
}

function ActivityRows({ id, element, data, draft, update, issues, locale }) {
  const definition = data.definitions.get(element.key);
  // The definition's own form (issue 51), until a frame of it fails: then the generic fields.
  const [failed, setFailed] = useState(null);
  const custom = hasCustomForm(definition) && !failed;
  const listed = data.activities.get(element.key).activities;
  const setRow = (index, name, text) =>
    update({ rows: draft.rows.map((r, i) => (i === index ? { ...r, [name]: text } : r)), noActivity: false });
  const emptyRow = () => Object.fromEntries(definition.inputs.map((input) => [input.name, '']));
  const unchanged = JSON.stringify(draft.rows) === JSON.stringify(draftsFrom(data)[element.key].rows);
  const resultUnit = unitName(unitById(data.units, definition.unitId));
  return html`<div class="rows" role="group" aria-labelledby=${`${id}-title`}>
    ${definition.description ? html`<p class="muted">${definition.description}</p>` : null}
    ${failed ? html`<p class="notice" role="status">${t('customForm.failed')}</p>` : null}
    ${draft.rows.map((row, index) => {
      const rowIssues = issues.filter((i) => i.row === index);
      const calculated = unchanged ? listed[index] : null;
      return html`<div class=${`row-card${rowIssues.length ? ' has-error' : ''}`} data-row=${index}>
        <p class="row-title">${definition.name} ${index + 1}</p>
        ${
          custom
            ? html`<${CustomRow} title=${`${definition.name} ${index + 1}`} definition=${definition} row=${row}
              units=${data.units} locale=${locale} onText=${(name, text) => setRow(index, name, text)} onFail=${setFailed} />`
            : html`<div class="row-fields">
          ${definition.inputs.map(
            (input) => html`<${ActivityInput} id=${`${id}-${index}-${input.name}`} input=${input}
            text=${row[input.name] ?? ''} onText=${(text) => setRow(index, input.name, text)}
            error=${rowIssues.find((i) => i.input === input.name)} changed=${!unchanged} />`,
          )}
        </div>`
        }
        ${rowIssues.filter((i) => custom || !definition.inputs.some((input) => input.name === i.input)).map((i) => html`<p class="field-error">${custom && i.input ? `${humanize(i.input)}: ` : ''}${i.message}</p>`)}
        ${calculated ? html`<p class="calculated">${t('field.calculated')} <strong>${formatNumber(calculated.value)}</strong>${resultUnit ? ` ${resultUnit}` : ''}</p>` : null}
        <button type="button" class="secondary small" onClick=${() => update({ rows: draft.rows.filter((_, i) => i !== index) })}>${t('field.removeRow', { name: definition.name, number: index + 1 })}</button>
      </div>`;
    })}
    <div class="row-actions">
      <button type="button" class="secondary" onClick=${() => update({ rows: [...draft.rows, emptyRow()], noActivity: false })}>${t('field.addRow', { name: definition.name })}</button>
      ${
        draft.rows.length === 0
          ? html`<span class="check"><input id=${`${id}-none`} type="checkbox" checked=${draft.noActivity}
              onChange=${(e) => update({ noActivity: e.currentTarget.checked })} />
              <label for=${`${id}-none`}>${t('field.noActivity')}</label></span>`
          : null
      }
    </div>
    ${listed.length && unchanged ? html`<p class="calculated">${t('field.total')} <strong>${formatNumber(listed.reduce((s, a) => s + a.value, 0))}</strong>${resultUnit ? ` ${resultUnit}` : ''}</p>` : null}
  </div>`;
}

function ActivityInput({ id, input, text, onText, error, changed }) {
  const errorId = `${id}-error`;
  // A number shows how it is read (in the locale, every decimal) while it has no error.
  const read = changed && input.type === 'number' && !error ? readNumber(text) : null;
  const readId = typeof read?.value === 'number' ? `${id}-read` : null;
  const attrs = {
    id,
    'aria-invalid': error ? 'true' : undefined,
    'aria-describedby': error ? errorId : (readId ?? undefined),
  };
  let control;
  if (input.editor?.type === 'select') {
    control = html`<select ...${attrs} value=${text} onChange=${(e) => onText(e.currentTarget.value)}>
      <option value="">${t('field.choose')}</option>
      ${input.editor.options.map((o) => html`<option value=${o.value}>${o.label}</option>`)}
    </select>`;
  } else if (input.type === 'boolean') {
    control = html`<select ...${attrs} value=${text} onChange=${(e) => onText(e.currentTarget.value)}>
      <option value="">${t('field.notAnswered')}</option><option value="true">${t('field.yes')}</option><option value="false">${t('field.no')}</option>
    </select>`;
  } else if (input.type === 'date') {
    control = html`<input ...${attrs} type="date" value=${text} onInput=${(e) => onText(e.currentTarget.value)} />`;
  } else {
    control = html`<input ...${attrs} type="text" inputmode=${input.type === 'number' ? 'decimal' : undefined}
      placeholder=${input.example ?? ''} value=${text} onInput=${(e) => onText(e.currentTarget.value)} />`;
  }
  return html`<div class="field">
    <label for=${id}>${humanize(input.name)}${input.required ? html` <span class="required">${t('field.required')}</span>` : null}</label>
    ${control}
    ${error ? html`<p class="field-error" id=${errorId}>${error.message}</p>` : null}
    ${readId ? html`<p class="will-store" id=${readId}>${t('field.willStore')} <strong>${formatExact(read.value)}</strong></p>` : null}
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

/**
 * What the service will store for the typed text, in the person's locale and the unit's name
 * (and in the element's unit when another one was chosen): the person sees the number before it is sent.
 */
function WillStore({ id, text, typedUnit, base, locale }) {
  const read = readNumber(text, locale);
  if (read.error || read.value === null) return null;
  const converted = typedUnit && base && typedUnit.id !== base.id;
  return html`<p class="will-store" id=${id}>
    ${t('field.willStore')} <strong>${formatExact(read.value, locale)}</strong>${typedUnit ? ` ${unitName(typedUnit)}` : ''}${
      converted
        ? html` (<strong>${formatExact(toStored(read.value, typedUnit, base), locale)}</strong> ${unitName(base)})`
        : null
    }
  </p>`;
}

/** The service found the value unusual: the person says why it is right, or corrects it. */
function OutlierComment({ id, element, outliers, draft, update, context }) {
  const commentId = `${id}-comment`;
  return html`<div class="outlier" role="group" aria-labelledby=${`${id}-outlier`}>
    <p class="outlier-message" id=${`${id}-outlier`}>
      ${outliers.map((o) => html`<span>${outlierText(element, o, context)} </span>`)}
    </p>
    <label for=${commentId}>${t('field.whyRight')} <span class="required">${t('field.neededToSave')}</span></label>
    <textarea id=${commentId} rows="2" maxlength="2000" value=${draft.comment ?? ''} aria-describedby=${`${id}-outlier`}
      onInput=${(e) => update({ comment: e.currentTarget.value })}></textarea>
  </div>`;
}
