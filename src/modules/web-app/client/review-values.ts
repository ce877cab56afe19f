// How the review screen shows one value (review.ts): its status and latest comment, the value as
// a reviewer must check it (a file's download link, an activity's rows with their calculated
// values, an option's label) and its history.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { answer, api, errorLines } from './api.js';
import type {
  ActivityDefinition,
  ActivityPage,
  FormElement,
  HistoryEntry,
  Media,
  QueueItem,
  Unit,
} from './api-shapes.js';
import { REVIEW_WORDS } from './format.js';
import { t } from './i18n/index.js';
import { showBytes, showMoment, showNumber, valueWords } from './review-format.js';
import { Badge, Errors, Loading } from './ui.js';

type Activity = ActivityPage['activities'][number];

const TONES: Record<string, string> = { COMPLETED: 'muted', APPROVED: 'good', REJECTED: 'bad' };

/** The status badge and the latest review's comment (also one made before the value was entered again). */
export function StatusShown({ item }: { item: QueueItem }) {
  const last = item.lastReview;
  return html`<span class="status-cell">
    <${Badge} tone=${TONES[item.status]}>${REVIEW_WORDS[item.status]}<//>
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

export function ValueShown({
  item,
  element,
  units,
}: {
  item: QueueItem;
  element: FormElement | undefined;
  units: Map<string, Unit>;
}) {
  if (item.elementType === 'FILE') return html`<${FileShown} item=${item} />`;
  if (item.elementType === 'ACTIVITY') return html`<${ActivitiesShown} item=${item} element=${element} />`;
  const entered =
    item.elementType === 'NUMBER' && item.selectedUnitId && typeof item.originalValue === 'number'
      ? ` ${t('review.enteredAs', { value: showNumber(item.originalValue), unit: units.get(item.selectedUnitId)?.symbol ?? '' })}`
      : '';
  return html`<span class="num">${valueWords(item, element, units)}</span>${entered ? html`<span class="muted">${entered}</span>` : null}`;
}

/** A FILE value: its name and size, and a link that downloads it (a signed URL, asked for again once expired). */
function FileShown({ item }: { item: QueueItem }) {
  const [media, setMedia] = useState<Media | null>(null);
  const [error, setError] = useState('');
  const fetchMedia = () =>
    answer(api.GET('/api/v1/media/{id}', { params: { path: { id: item.file?.mediaId ?? '' } } }))
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
  const follow = async (event: Event) => {
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
function ActivitiesShown({ item, element }: { item: QueueItem; element: FormElement | undefined }) {
  const [open, setOpen] = useState(false);
  const [data, setData] = useState<{ rows: Activity[]; definition: ActivityDefinition | null } | null>(null);
  const [error, setError] = useState('');
  const count = item.activityCount;
  const toggle = async () => {
    setOpen(!open);
    if (data || open) return;
    try {
      const [page, definition] = await Promise.all([
        answer(
          api.GET('/api/v1/activities', {
            params: {
              query: {
                formId: item.formId,
                key: item.elementKey,
                siteIds: [item.siteId],
                years: [item.year],
                periodUnits: [item.periodUnit],
                limit: 1000,
              },
            },
          }),
        ),
        element?.activityDefinitionId
          ? answer(
              api.GET('/api/v1/activity-definitions/{id}', {
                params: { path: { id: element.activityDefinitionId } },
              }),
            )
          : null,
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

type ShownInput = {
  name: string;
  exportName?: string | null;
  editor?: { options?: { value: unknown; label: string }[] } | null;
};

function ActivityTable({
  rows,
  definition,
  label,
}: {
  rows: Activity[];
  definition: ActivityDefinition | null;
  label: string | undefined;
}) {
  const first = rows[0];
  if (!first) return html`<p class="muted">${t('review.noActivity')}</p>`;
  const inputs: ShownInput[] = definition?.inputs ?? Object.keys(first.input).map((name) => ({ name }));
  const unit = first.unit ?? definition?.unitSymbol ?? '';
  const withUnit = (n: number) => `${showNumber(n)}${unit ? ` ${unit}` : ''}`;
  const shown = (input: ShownInput, v: unknown) => {
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
          ${inputs.map((i) => html`<td>${shown(i, (r.input as Record<string, unknown>)[i.name])}</td>`)}
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

export function History({
  id,
  item,
  element,
  units,
}: {
  id: string;
  item: QueueItem;
  element: FormElement | undefined;
  units: Map<string, Unit>;
}) {
  const [entries, setEntries] = useState<HistoryEntry[] | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  useEffect(() => {
    answer(api.GET('/api/v1/form-submissions/values/{id}/history', { params: { path: { id } } }))
      .then(setEntries)
      .catch((error) => setErrors(errorLines(error)));
  }, [id]);
  if (errors.length) return html`<${Errors} lines=${errors} />`;
  if (!entries) return html`<${Loading} what=${t('loading.history')} />`;
  const plain = (value: unknown) =>
    item.elementType === 'FILE' || item.elementType === 'ACTIVITY'
      ? ''
      : ` ${valueWords({ ...item, value }, element, units)}`;
  return html`<ol class="history">
    ${entries.map(
      (h) => html`<li>
        <strong>${t('review.action', { action: h.action })}</strong> ${t('review.historyBy', { name: h.userName || h.userEmail, time: showMoment(h.at) })}
        ${h.action === 'REVIEW' ? ` ${REVIEW_WORDS[h.after?.status ?? ''] ?? ''}` : plain(h.after?.value ?? null)}
        ${h.comment ? html` <q>${h.comment}</q>` : null}
      </li>`,
    )}
  </ol>`;
}
