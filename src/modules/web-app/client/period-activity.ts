// An ACTIVITY element on the entry screen (period-fields.ts): its rows, each with the definition's
// inputs (or the definition's own form in a frame, custom-form/host.ts), the calculated values
// while nothing changed, and the total.
import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useState } from 'preact/hooks';
import type { ActivityDefinition, FormElement } from './api-shapes.js';
import { CustomRow, hasCustomForm } from './custom-form/host.js';
import { formatNumber } from './format.js';
import { t } from './i18n/index.js';
import { formatExact, readNumber } from './numbers.js';
import { type Draft, draftsFrom, type FieldIssue, type PeriodData, type Update } from './period-data.js';
import { unitById, unitName } from './rules.js';
import { inputChecked, inputValue } from './ui.js';

export function ActivityRows({
  id,
  element,
  data,
  draft,
  update,
  issues,
  locale,
}: {
  id: string;
  element: FormElement;
  data: PeriodData;
  draft: Draft;
  update: Update;
  issues: FieldIssue[];
  locale: string;
}) {
  const rows = draft.rows ?? [];
  const definition = data.definitions.get(element.key) as ActivityDefinition;
  // The definition's own form (issue 51), until a frame of it fails: then the generic fields.
  const [failed, setFailed] = useState<unknown>(null);
  const custom = hasCustomForm(definition) && !failed;
  const listed = data.activities.get(element.key)?.activities ?? [];
  const setRow = (index: number, name: string, text: string) =>
    update({ rows: rows.map((r, i) => (i === index ? { ...r, [name]: text } : r)), noActivity: false });
  const emptyRow = () => Object.fromEntries(definition.inputs.map((input) => [input.name, '']));
  const unchanged = JSON.stringify(rows) === JSON.stringify(draftsFrom(data)[element.key]?.rows);
  const resultUnit = unitName(unitById(data.units, definition.unitId));
  return html`<div class="rows" role="group" aria-labelledby=${`${id}-title`}>
    ${definition.description ? html`<p class="muted">${definition.description}</p>` : null}
    ${failed ? html`<p class="notice" role="status">${t('customForm.failed')}</p>` : null}
    ${rows.map((row, index) => {
      const rowIssues = issues.filter((i) => i.row === index);
      const calculated = unchanged ? listed[index] : null;
      return html`<div class=${`row-card${rowIssues.length ? ' has-error' : ''}`} data-row=${index}>
        <p class="row-title">${definition.name} ${index + 1}</p>
        ${
          custom
            ? html`<${CustomRow} title=${`${definition.name} ${index + 1}`} definition=${definition} row=${row}
              units=${data.units} locale=${locale} onText=${(name: string, text: string) => setRow(index, name, text)} onFail=${setFailed} />`
            : html`<div class="row-fields">
          ${definition.inputs.map(
            (input) => html`<${ActivityInput} id=${`${id}-${index}-${input.name}`} input=${input}
            text=${row[input.name] ?? ''} onText=${(text: string) => setRow(index, input.name, text)}
            error=${rowIssues.find((i) => i.input === input.name)} changed=${!unchanged} />`,
          )}
        </div>`
        }
        ${rowIssues.filter((i) => custom || !definition.inputs.some((input) => input.name === i.input)).map((i) => html`<p class="field-error">${custom && i.input ? `${humanize(i.input)}: ` : ''}${i.message}</p>`)}
        ${calculated ? html`<p class="calculated">${t('field.calculated')} <strong>${formatNumber(calculated.value)}</strong>${resultUnit ? ` ${resultUnit}` : ''}</p>` : null}
        <button type="button" class="secondary small" onClick=${() => update({ rows: rows.filter((_, i) => i !== index) })}>${t('field.removeRow', { name: definition.name, number: index + 1 })}</button>
      </div>`;
    })}
    <div class="row-actions">
      <button type="button" class="secondary" onClick=${() => update({ rows: [...rows, emptyRow()], noActivity: false })}>${t('field.addRow', { name: definition.name })}</button>
      ${
        rows.length === 0
          ? html`<span class="check"><input id=${`${id}-none`} type="checkbox" checked=${draft.noActivity}
              onChange=${(e: Event) => update({ noActivity: inputChecked(e) })} />
              <label for=${`${id}-none`}>${t('field.noActivity')}</label></span>`
          : null
      }
    </div>
    ${listed.length && unchanged ? html`<p class="calculated">${t('field.total')} <strong>${formatNumber(listed.reduce((s, a) => s + a.value, 0))}</strong>${resultUnit ? ` ${resultUnit}` : ''}</p>` : null}
  </div>`;
}

type ActivityDefinitionInput = ActivityDefinition['inputs'][number];

function ActivityInput({
  id,
  input,
  text,
  onText,
  error,
  changed,
}: {
  id: string;
  input: ActivityDefinitionInput;
  text: string;
  onText: (text: string) => void;
  error: FieldIssue | undefined;
  changed: boolean;
}) {
  const errorId = `${id}-error`;
  // A number shows how it is read (in the locale, every decimal) while it has no error.
  const read = changed && input.type === 'number' && !error ? readNumber(text) : null;
  const readId = typeof read?.value === 'number' ? `${id}-read` : null;
  const attrs = {
    id,
    'aria-invalid': error ? 'true' : undefined,
    'aria-describedby': error ? errorId : (readId ?? undefined),
  };
  let control: VNode;
  if (input.editor?.type === 'select') {
    control = html`<select ...${attrs} value=${text} onChange=${(e: Event) => onText(inputValue(e))}>
      <option value="">${t('field.choose')}</option>
      ${(input.editor.options ?? []).map((o) => html`<option value=${o.value}>${o.label}</option>`)}
    </select>`;
  } else if (input.type === 'boolean') {
    control = html`<select ...${attrs} value=${text} onChange=${(e: Event) => onText(inputValue(e))}>
      <option value="">${t('field.notAnswered')}</option><option value="true">${t('field.yes')}</option><option value="false">${t('field.no')}</option>
    </select>`;
  } else if (input.type === 'date') {
    control = html`<input ...${attrs} type="date" value=${text} onInput=${(e: Event) => onText(inputValue(e))} />`;
  } else {
    control = html`<input ...${attrs} type="text" inputmode=${input.type === 'number' ? 'decimal' : undefined}
      placeholder=${input.example ?? ''} value=${text} onInput=${(e: Event) => onText(inputValue(e))} />`;
  }
  return html`<div class="field">
    <label for=${id}>${humanize(input.name)}${input.required ? html` <span class="required">${t('field.required')}</span>` : null}</label>
    ${control}
    ${error ? html`<p class="field-error" id=${errorId}>${error.message}</p>` : null}
    ${readId ? html`<p class="will-store" id=${readId}>${t('field.willStore')} <strong>${formatExact(read?.value ?? 0)}</strong></p>` : null}
  </div>`;
}

/** An input's name as people read it: `litres_used` -> "Litres used". */
const humanize = (name: string) => {
  const words = name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};
