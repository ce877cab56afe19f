// The period screen's offline parts: queueing a save that could not reach the service, and the
// notice of the period's queued values (waiting; refused, with each value's reason; or changed by
// someone else meanwhile, for the person to choose).
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { StoredValue } from '../api-shapes.js';
import { formatNumber } from '../format.js';
import { issueText } from '../issue-text.js';
import type { Draft, Drafts, PeriodData, SendValue, Target } from '../period-data.js';
import {
  type Conflict,
  enqueue,
  forget,
  isPendingFile,
  type OutboxItem,
  onOutboxChange,
  outboxItem,
  type Snapshot,
  update,
} from './outbox.js';
import { offlineTexts } from './texts.js';

const snapshot = (stored: StoredValue | undefined): Snapshot =>
  stored
    ? {
        value: stored.value,
        originalValue: stored.originalValue ?? null,
        selectedUnitId: stored.selectedUnitId ?? null,
      }
    : null;

/**
 * Queues the screen's save: the values and no-activity markers it would have sent, with what the
 * person saw stored of each element (to notice a newer value when it is sent).
 */
export function queueSave({
  key,
  data,
  drafts,
  values,
  targets,
  markers,
  formId,
  siteId,
  year,
  periodUnit,
}: {
  key: string;
  data: PeriodData;
  drafts: Drafts;
  values: SendValue[];
  targets: Target[];
  markers: { key: string; marked: boolean }[];
  formId: string;
  siteId: string;
  year: number;
  periodUnit: number;
}) {
  const keys = new Set([...targets.map((t) => t.key), ...markers.map((m) => m.key)]);
  const elements = data.form.elements.filter((e) => keys.has(e.key));
  const base: Record<string, Snapshot> = {};
  for (const e of elements) {
    if (e.type === 'TIMESTAMP' || e.type === 'ACTIVITY') continue;
    base[e.key] = snapshot(data.values.find((v) => v.elementId === e.id && v.periodUnit === periodUnit));
  }
  return enqueue({
    key,
    formId,
    siteId,
    year,
    periodUnit,
    periodType: data.form.periodType,
    formName: data.form.name,
    siteName: data.site?.siteName ?? '',
    values: values.map((v) => (isPendingFile(v.value) ? { ...v, pendingFile: v.value } : v)),
    targets,
    markers,
    base,
    elementIds: Object.fromEntries(elements.map((e) => [e.key, e.id])),
    labels: Object.fromEntries(elements.map((e) => [e.key, e.label])),
    drafts: Object.fromEntries(elements.map((e) => [e.key, drafts[e.key]])),
  });
}

/**
 * The period's queued item, kept current; `onAnswered(item)` runs when the service answered it
 * while the screen is open: null once stored, else the item refused or holding conflicts.
 */
export function useQueued(key: string, onAnswered: (item: OutboxItem | null) => void) {
  const [item, setItem] = useState<OutboxItem | null>(null);
  const had = useRef<OutboxItem | null>(null);
  const stored = useRef(onAnswered);
  stored.current = onAnswered;
  useEffect(() => {
    let live = true;
    const read = async () => {
      const found = await outboxItem(key);
      if (!live) return;
      const before = had.current;
      had.current = found;
      setItem(found);
      if (before?.state === 'waiting' && found?.state !== 'waiting') stored.current(found);
    };
    read();
    const stop = onOutboxChange(read);
    return () => {
      live = false;
      stop();
    };
  }, [key]);
  return item;
}

const shown = (value: unknown) => {
  if (value === null || value === undefined || value === '') return offlineTexts.empty;
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'object') return offlineTexts.aFile;
  return String(value);
};
const draftShown = (draft: Draft | null) => {
  if (!draft) return offlineTexts.empty;
  if ('mediaId' in draft) return draft.fileName ?? offlineTexts.aFile;
  return draft.text === '' || draft.text === undefined ? offlineTexts.empty : draft.text;
};

/** The notice above the period's values; `choose(key, draft|null)` applies a conflict's answer. */
export function QueuedNotice({
  item,
  locale,
  choose,
}: {
  item: OutboxItem | null;
  locale: string;
  choose: (key: string, draft: Draft | null) => void;
}) {
  if (!item) return null;
  const time = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  const label = (key: string) => item.labels?.[key] ?? key;
  if (item.state === 'waiting') {
    return html`<section class="queued" aria-label=${offlineTexts.stateWaiting}>
      <p>${offlineTexts.queuedNotice(time.format(new Date(item.queuedAt)))}</p>
    </section>`;
  }
  if (item.state === 'refused') {
    const lines = item.issues.map((issue) => {
      const match = /^values\.(\d+)/.exec(issue.path ?? '');
      const target = match ? item.targets[Number(match[1])] : null;
      // In the person's language where the issue has a code the app knows (decision 225).
      const message = issueText(issue);
      if (!target) return offlineTexts.refusedWhole(message);
      // The sentence often names the value already ("Electricity used for June … is locked").
      return message.startsWith(label(target.key))
        ? message
        : offlineTexts.refusedValue(label(target.key), message);
    });
    return html`<section class="queued refused" aria-labelledby="queued-refused">
      <p id="queued-refused"><strong>${offlineTexts.refusedTitle}</strong></p>
      <ul>${lines.map((line) => html`<li>${line}</li>`)}</ul>
      <p>${offlineTexts.refusedHint}</p>
      <div class="row-actions">
        <button type="button" class="secondary" onClick=${() => forget(item.key)}>${offlineTexts.forget}</button>
      </div>
    </section>`;
  }
  const answer = async (conflict: Conflict, draft: Draft | null) => {
    choose(conflict.key, draft);
    const conflicts = item.conflicts.filter((c) => c.key !== conflict.key);
    if (conflicts.length) await update({ ...item, conflicts });
    else await forget(item.key);
  };
  return html`<section class="queued refused" aria-labelledby="queued-conflict">
    <p id="queued-conflict"><strong>${offlineTexts.conflictTitle}</strong></p>
    ${item.conflicts.map(
      (c) => html`<div>
        <p>${offlineTexts.conflictValue(label(c.key), shown(c.theirs?.originalValue ?? c.theirs?.value), draftShown(c.mine))}</p>
        <div class="row-actions">
          <button type="button" onClick=${() => answer(c, c.mine)}>${offlineTexts.keepMine(label(c.key))}</button>
          <button type="button" class="secondary" onClick=${() => answer(c, null)}>${offlineTexts.keepTheirs(label(c.key))}</button>
        </div>
      </div>`,
    )}
  </section>`;
}
