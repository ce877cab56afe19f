// The fields of the entry screen, one per form element: the value as typed, what the service will
// store (read in the person's locale, in the element's unit), the checks beside the field, the
// comment an outlier asks for, and the reviewer's word on a stored value.
import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { answer, api, errorLines, isOffline, uploadFile } from './api.js';
import type { FormElement, HistoryEntry, StoredValue, Unit } from './api-shapes.js';
import { formatBytes, formatNumber, formatTime, REVIEW_WORDS } from './format.js';
import { t, textOf } from './i18n/index.js';
import { formatExact, readNumber } from './numbers.js';
import { isPendingFile, keepFile } from './offline/outbox.js';
import { offlineTexts } from './offline/texts.js';
import { ActivityRows } from './period-activity.js';
import type { Draft, FieldIssue, PeriodData, PlacedIssue, Update } from './period-data.js';
import { outlierText, type RuleContext, toStored, unitById, unitName } from './rules.js';
import { Badge, Errors, inputValue } from './ui.js';

/** The period and the person's locale, and which form, site and period (for uploads). */
export type FieldContext = RuleContext & { formId: string; siteId: string };
type Described = { 'aria-invalid': string | undefined; 'aria-describedby': string | undefined };

const REVIEW_TONES: Record<string, string> = { COMPLETED: 'muted', APPROVED: 'good', REJECTED: 'bad' };

/** One element of the form; `onLeave` is called when the keyboard leaves any of its controls. */
export function ElementField({
  element,
  data,
  draft,
  changed,
  issues,
  update,
  context,
  onLeave,
}: {
  element: FormElement;
  data: PeriodData;
  draft: Draft;
  changed: boolean;
  issues: FieldIssue[];
  update: Update;
  context: FieldContext;
  onLeave: (event: FocusEvent) => void;
}) {
  const id = `el-${element.key}`;
  const errorId = `${id}-error`;
  const stored = data.values.filter((v) => v.elementId === element.id);
  const outliers = issues.filter((i): i is PlacedIssue => i.type === 'outlier');
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
  let control: VNode;
  switch (element.type) {
    case 'NUMBER':
      control = html`<${NumberInput} id=${id} element=${element} data=${data} draft=${draft} update=${update} described=${described} locale=${context.locale} show=${changed && !invalid} />`;
      break;
    case 'TEXT':
      control = html`<textarea id=${id} rows="2" value=${draft.text} onInput=${(e: Event) => update({ text: inputValue(e) })} ...${described}></textarea>`;
      break;
    case 'BOOLEAN':
      control = html`<select id=${id} value=${draft.text} onChange=${(e: Event) => update({ text: inputValue(e) })} ...${described}>
        <option value="">${t('field.notAnswered')}</option><option value="true">${t('field.yes')}</option><option value="false">${t('field.no')}</option>
      </select>`;
      break;
    case 'SELECT':
      control = html`<select id=${id} value=${draft.text} onChange=${(e: Event) => update({ text: inputValue(e) })} ...${described}>
        <option value="">${t('field.choose')}</option>
        ${(element.options ?? []).map((o) => html`<option value=${o.value}>${textOf(o, 'label')}</option>`)}
      </select>`;
      break;
    case 'DATE':
      control = html`<input id=${id} type="date" value=${draft.text} onInput=${(e: Event) => update({ text: inputValue(e) })} ...${described} />`;
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
    ${stored.length && element.type !== 'TIMESTAMP' ? html`<${ReviewLine} value=${stored[0]} review=${data.reviews.get(stored[0]?.formElementSubmissionId ?? '')} element=${element} data=${data} />` : null}
  </div>`;
}

function ReviewLine({
  value,
  review,
  element,
  data,
}: {
  value: StoredValue;
  review: HistoryEntry | undefined;
  element: FormElement;
  data: PeriodData;
}) {
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

function NumberInput({
  id,
  element,
  data,
  draft,
  update,
  described,
  locale,
  show,
}: {
  id: string;
  element: FormElement;
  data: PeriodData;
  draft: Draft;
  update: Update;
  described: Described;
  locale: string;
  show: boolean;
}) {
  const base = unitById(data.units, element.unitId);
  const choices = base ? data.units.filter((u) => u.dimension === base.dimension) : [];
  const read = readNumber(draft.text, locale);
  // Only for a changed value, and not while the field shows an error (it would not be saved).
  const will = show && read.value !== null && read.value !== undefined ? `${id}-will` : null;
  const describedBy = [described['aria-describedby'], will].filter(Boolean).join(' ') || undefined;
  return html`<div class="number-row">
    <input id=${id} type="text" inputmode="decimal" autocomplete="off" value=${draft.text}
      onInput=${(e: Event) => update({ text: inputValue(e) })} ...${described} aria-describedby=${describedBy} />
    ${
      choices.length > 1
        ? html`<span class="unit-picker"><label for=${`${id}-unit`}>${t('field.unit')}</label>
          <select id=${`${id}-unit`} value=${draft.unitId} onChange=${(e: Event) => update({ unitId: inputValue(e) })}>
            ${choices.map((u) => html`<option value=${u.id}>${unitName(u)}</option>`)}
          </select></span>`
        : null
    }
  </div>
  ${will ? html`<${WillStore} id=${will} text=${draft.text} typedUnit=${unitById(data.units, draft.unitId) ?? base} base=${base} locale=${locale} />` : null}`;
}

function TimestampRows({ id, draft, update }: { id: string; draft: Draft; update: Update }) {
  const rows = draft.rows ?? [];
  const setRow = (index: number, change: Record<string, string>) =>
    update({ rows: rows.map((r, i) => (i === index ? { ...r, ...change } : r)) });
  return html`<div class="rows" role="group" aria-labelledby=${`${id}-title`}>
    ${rows.map(
      (row, index) => html`<div class="row-card">
        <div class="field"><label for=${`${id}-${index}-at`}>${t('field.dateTime')}</label>
          <input id=${`${id}-${index}-at`} type="datetime-local" value=${row.at} onInput=${(e: Event) => setRow(index, { at: inputValue(e) })} /></div>
        <div class="field"><label for=${`${id}-${index}-value`}>${t('field.value')}</label>
          <input id=${`${id}-${index}-value`} type="text" inputmode="decimal" value=${row.text} onInput=${(e: Event) => setRow(index, { text: inputValue(e) })} /></div>
        <button type="button" class="secondary small" onClick=${() => update({ rows: rows.filter((_, i) => i !== index) })}>${t('field.removeReading', { number: index + 1 })}</button>
      </div>`,
    )}
    <button type="button" class="secondary add-row" onClick=${() => update({ rows: [...rows, { at: '', text: '' }] })}>${t('field.addReading')}</button>
  </div>`;
}

function FileInput({
  id,
  element,
  draft,
  update,
  context,
  described,
}: {
  id: string;
  element: FormElement;
  draft: Draft;
  update: Update;
  context: FieldContext;
  described: Described;
}) {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [link, setLink] = useState<string | null>(null);
  useEffect(() => {
    setLink(null);
    const mediaId = draft.mediaId;
    if (!mediaId || isPendingFile(mediaId)) return;
    answer(api.GET('/api/v1/media/{id}', { params: { path: { id: mediaId } } }))
      .then((m) => setLink(m.downloadUrl ?? null))
      .catch(() => setLink(null));
  }, [draft.mediaId]);
  const choose = async (event: Event) => {
    const input = event.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
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
      input.value = '';
    }
  };
  return html`<div class="file">
    ${
      draft.mediaId
        ? html`<p class="file-name">
            <span>${draft.fileName}${draft.size ? ` (${formatBytes(draft.size)})` : ''}</span>
            ${link ? html` <a href=${link} target="_blank" rel="noopener">${t('field.download')}</a>` : null}
            ${isPendingFile(draft.mediaId) ? html` <span class="muted">${offlineTexts.fileWaits(draft.fileName ?? '')}</span>` : null}
            <button type="button" class="secondary small" onClick=${() => update({ mediaId: null, fileName: null, size: null })}>${t('field.removeFile')}</button>
          </p>`
        : null
    }
    <input id=${id} type="file" onChange=${choose} ...${described} />
    ${busy ? html`<p class="status" role="status">${t('field.uploading')}</p>` : null}
    <${Errors} lines=${errors} />
  </div>`;
}

/**
 * What the service will store for the typed text, in the person's locale and the unit's name
 * (and in the element's unit when another one was chosen): the person sees the number before it is sent.
 */
function WillStore({
  id,
  text,
  typedUnit,
  base,
  locale,
}: {
  id: string;
  text: string | undefined;
  typedUnit: Unit | null;
  base: Unit | null;
  locale: string;
}) {
  const read = readNumber(text, locale);
  if (read.error || typeof read.value !== 'number') return null;
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
function OutlierComment({
  id,
  element,
  outliers,
  draft,
  update,
  context,
}: {
  id: string;
  element: FormElement;
  outliers: PlacedIssue[];
  draft: Draft;
  update: Update;
  context: FieldContext;
}) {
  const commentId = `${id}-comment`;
  return html`<div class="outlier" role="group" aria-labelledby=${`${id}-outlier`}>
    <p class="outlier-message" id=${`${id}-outlier`}>
      ${outliers.map((o) => html`<span>${outlierText(element, o, context)} </span>`)}
    </p>
    <label for=${commentId}>${t('field.whyRight')} <span class="required">${t('field.neededToSave')}</span></label>
    <textarea id=${commentId} rows="2" maxlength="2000" value=${draft.comment ?? ''} aria-describedby=${`${id}-outlier`}
      onInput=${(e: Event) => update({ comment: inputValue(e) })}></textarea>
  </div>`;
}
