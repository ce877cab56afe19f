// The queue of periods saved without a connection, kept in this browser's IndexedDB until the
// service gives a definitive answer. One item per (person, form, site, year, period), sent in the
// order they were first saved, each with an Idempotency-Key kept until that answer: a request cut
// off before its answer is sent again with the same key, and values the service already stores
// are neither rewritten nor recorded again in their history. The key sent is the item's key and a
// digest of the body sent (requestKey): a retry whose body shrank (a value someone else changed
// meanwhile held back) is another request for the service, not a 409 for a reused key. Each answer is applied:
// stored → the draft of those values goes; refused (a lock, a permission, a rule) → kept, with the
// service's issues, for the period screen to show beside the fields; a value someone else changed
// meanwhile → not sent, kept for the person to choose. Files picked offline wait beside the item.
import { createStore, del, entries, get, set } from 'idb-keyval';
import { ApiError, answer, api, apiNow, type Issue, isOffline, session, uploadFile } from '../api.js';
import { readDraft, writeDraft } from '../drafts.js';
import type { Draft, SendValue, Target } from '../period-data.js';
import { currentOwner } from './cache.js';
import { offlineTexts } from './texts.js';

/** What the person saw stored of an element when they changed it. */
export type Snapshot = { value: unknown; originalValue: unknown; selectedUnitId: string | null } | null;
/** A value someone else changed meanwhile: the person chooses. */
export type Conflict = { key: string; theirs: Snapshot; mine: Draft | null };
/** A period's save as the screen queues it (offline/period-offline.ts). */
export type Period = {
  key: string;
  formId: string;
  siteId: string;
  year: number;
  periodUnit: number;
  periodType: string;
  formName: string;
  siteName: string;
  values: SendValue[];
  targets: Target[];
  markers: { key: string; marked: boolean }[];
  base: Record<string, Snapshot>;
  elementIds: Record<string, string>;
  labels: Record<string, string>;
  drafts: Record<string, Draft | undefined>;
};
/** A queued period, with its state and the service's answer. */
export type OutboxItem = Period & {
  owner: string | null;
  order: number;
  idempotencyKey: string;
  queuedAt: string;
  state: 'waiting' | 'refused' | 'conflict';
  issues: Issue[];
  conflicts: Conflict[];
  answeredAt?: string;
};
/** A file picked offline, kept until it is uploaded. */
type KeptFile = { blob: Blob; name: string; type: string; size: number; entityId: string; fieldName: string };

let itemStore: ReturnType<typeof createStore> | null = null;
let fileStore: ReturnType<typeof createStore> | null = null;
const items = () => {
  itemStore ??= createStore('sdcs-outbox', 'items');
  return itemStore;
};
const files = () => {
  fileStore ??= createStore('sdcs-outbox-files', 'files');
  return fileStore;
};

/** A file picked without a connection is named by this in its draft until it is uploaded. */
export const PENDING = 'pending:';
export const isPendingFile = (value: unknown): value is string =>
  typeof value === 'string' && value.startsWith(PENDING);

const listeners = new Set<() => void>();
/** Calls `listener()` whenever the queue changes (in this tab); answers the unsubscribe. */
export function onOutboxChange(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
const changed = () => {
  for (const listener of listeners) listener();
};

/** This person's items, oldest first. */
export async function outboxItems(): Promise<OutboxItem[]> {
  const who = currentOwner();
  if (!who) return [];
  try {
    const all = await entries<string, OutboxItem>(items());
    return all
      .map(([, item]) => item)
      .filter((item) => item.owner === who)
      .sort((a, b) => a.order - b.order);
  } catch {
    return [];
  }
}

/** The item of one period (its draft key), or null. */
export async function outboxItem(key: string): Promise<OutboxItem | null> {
  try {
    const item = await get<OutboxItem>(key, items());
    return item && item.owner === currentOwner() ? item : null;
  } catch {
    return null;
  }
}

/** Keeps a file picked offline; answers the name its draft carries until it is uploaded. */
export async function keepFile(file: File, entityId: string, fieldName: string) {
  const id = `${PENDING}${crypto.randomUUID()}`;
  await set(
    id,
    { blob: file, name: file.name, type: file.type, size: file.size, entityId, fieldName },
    files(),
  );
  return id;
}

/**
 * Queues a period's save (replacing a queued one of the same period: the draft holds every
 * change not stored yet, so the new item carries them all). `period` names the draft key, the
 * form, site, year and period; `values`/`targets` as changedValues builds them; `drafts` the
 * person's drafts of the sent elements; `base` what the service stored of each when they were
 * changed (to notice someone else's newer value); `labels` the elements' labels.
 */
export async function enqueue(period: Period): Promise<OutboxItem> {
  const previous = await outboxItem(period.key);
  const item: OutboxItem = {
    ...period,
    owner: currentOwner(),
    order: previous?.order ?? Date.now(),
    idempotencyKey: crypto.randomUUID(),
    queuedAt: new Date().toISOString(),
    state: 'waiting',
    issues: [],
    conflicts: [],
  };
  await set(period.key, item, items());
  changed();
  askForSync();
  return item;
}

/** Forgets a period's item (answered, saved online since, or dismissed by the person). */
export async function forget(key: string) {
  const item = await outboxItem(key);
  if (!item) return;
  await del(key, items());
  await dropFiles(item);
  changed();
}

/** Stores a changed item (a conflict answered). */
export async function update(item: OutboxItem) {
  await set(item.key, item, items());
  changed();
}

async function dropFiles(item: OutboxItem) {
  for (const value of item.values ?? []) {
    if (isPendingFile(value.pendingFile)) await del(value.pendingFile, files()).catch(() => undefined);
  }
}

function askForSync() {
  navigator.serviceWorker?.ready
    // Background Sync (not in TypeScript's DOM library): where the browser has it.
    .then((registration) =>
      (registration as { sync?: { register(tag: string): Promise<void> } }).sync?.register('sdcs-outbox'),
    )
    .catch(() => undefined);
  if (navigator.onLine) flush();
}

let running: Promise<void> | null = null;
/** Sends every waiting item of this person, in order; one run at a time (across tabs where the browser can). */
export function flush(): Promise<void> {
  if (!session.token || !currentOwner() || !navigator.onLine) return Promise.resolve();
  if (!running) {
    // The lock's typing nests the callback's promise; the request settles when sendAll does.
    const run = navigator.locks
      ? (navigator.locks.request('sdcs-outbox', sendAll) as Promise<unknown> as Promise<void>)
      : sendAll();
    running = run.finally(() => {
      running = null;
    });
  }
  return running;
}

async function sendAll() {
  for (const item of await outboxItems()) {
    if (item.state !== 'waiting') continue;
    const fresh = await get<OutboxItem>(item.key, items());
    if (!fresh || fresh.idempotencyKey !== item.idempotencyKey) continue; // replaced meanwhile
    const answer = await send(fresh);
    if (answer === 'stop') break;
  }
}

/**
 * The Idempotency-Key of one send of `item` with `body`: the item's own key and the body's
 * SHA-256. The same body sent again has the same key (a lost answer is replayed, nothing is stored
 * twice); a changed body has another (the service refuses a key reused with another body, 409).
 */
export async function requestKey(item: { idempotencyKey: string }, body: unknown) {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  const hex = Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${item.idempotencyKey}.${hex}`;
}

const plain = (stored: Snapshot | undefined) =>
  stored
    ? JSON.stringify([stored.value, stored.originalValue ?? null, stored.selectedUnitId ?? null])
    : 'null';

/** The stored value is the one sent (an earlier send whose answer was lost stored it). */
function sameAsMine(stored: Snapshot | undefined, value: SendValue) {
  if (!stored) return value.value === null;
  const as = value.selectedUnitId ? stored.originalValue : stored.value;
  return JSON.stringify(as) === JSON.stringify(value.value);
}

/** What the service stores now of each sent element (by key), to compare with `base`. */
async function storedNow(item: OutboxItem): Promise<Record<string, Snapshot>> {
  const stored = await answer(
    apiNow.GET('/api/v1/form-submissions', {
      params: { query: { formId: item.formId, siteId: item.siteId, year: item.year, limit: 1 } },
    }),
  );
  const values = (stored.items[0]?.values ?? []).filter(
    (v) => v.periodUnit === item.periodUnit && v.value !== null && !v.deletedAt,
  );
  const now: Record<string, Snapshot> = {};
  for (const [key, elementId] of Object.entries(item.elementIds ?? {})) {
    const found = values.find((v) => v.elementId === elementId);
    now[key] = found
      ? {
          value: found.value,
          originalValue: found.originalValue,
          selectedUnitId: found.selectedUnitId ?? null,
        }
      : null;
  }
  return now;
}

/** Sends one item and applies the answer; answers 'stop' when nothing more can be sent now. */
async function send(item: OutboxItem): Promise<'stop' | 'sent'> {
  try {
    // Files picked offline first; each upload's media id is kept at once, so none is uploaded twice.
    for (const value of item.values) {
      if (!isPendingFile(value.pendingFile) || !isPendingFile(value.value)) continue;
      const kept = await get<KeptFile>(value.pendingFile, files());
      if (!kept) throw new ApiError(400, { message: offlineTexts.fileGone });
      const file = new File([kept.blob], kept.name, { type: kept.type });
      value.value = await uploadFile(file, { entityId: kept.entityId, fieldName: kept.fieldName });
      await set(item.key, item, items());
    }
    // A value someone else changed since the person saw it is not overwritten: they choose.
    const now = await storedNow(item);
    const conflicts: Conflict[] = [];
    const sending: SendValue[] = [];
    const targets: Target[] = [];
    item.values.forEach(({ pendingFile, ...value }, index) => {
      const key = item.targets[index]?.key ?? '';
      const timestamped = value.timestamp !== undefined;
      if (!timestamped && key in (item.base ?? {}) && plain(now[key]) !== plain(item.base[key])) {
        if (!sameAsMine(now[key], value)) {
          conflicts.push({ key, theirs: now[key] ?? null, mine: item.drafts?.[key] ?? null });
          return;
        }
      }
      sending.push(value);
      targets.push(item.targets[index] ?? { key });
    });
    if (sending.length) {
      const body = { formId: item.formId, siteId: item.siteId, year: item.year, values: sending };
      await answer(
        api.POST('/api/v1/form-submissions', {
          params: { header: { 'idempotency-key': await requestKey(item, body) } },
          body,
        }),
      );
    }
    for (const marker of item.markers ?? []) {
      const body = {
        formId: item.formId,
        key: marker.key,
        siteId: item.siteId,
        year: item.year,
        periodUnit: item.periodUnit,
      };
      await answer(
        marker.marked
          ? api.POST('/api/v1/activities/no-activity/mark', { body })
          : api.POST('/api/v1/activities/no-activity/unmark', { body }),
      );
    }
    // Stored: those values leave the draft (the draft keeps what was not sent).
    const storedKeys = new Set(targets.map((t) => t.key));
    for (const marker of item.markers ?? []) storedKeys.add(marker.key);
    const draft = await readDraft(item.key);
    if (draft?.changes) {
      const left = Object.fromEntries(Object.entries(draft.changes).filter(([k]) => !storedKeys.has(k)));
      await writeDraft(item.key, left);
    }
    await dropFiles(item);
    if (conflicts.length) {
      await update({
        ...item,
        state: 'conflict',
        values: [],
        targets: [],
        markers: [],
        conflicts,
        answeredAt: new Date().toISOString(),
      });
    } else {
      await del(item.key, items());
      changed();
    }
    return 'sent';
  } catch (error) {
    if (isOffline(error) || !(error instanceof ApiError) || error.status === 401) return 'stop';
    if (error.status >= 500 || error.status === 429 || error.status === 408) return 'stop';
    // Refused: every value is reported, with the service's issues where it named them.
    const named = error.issues.filter((issue) => /^values\.\d+/.test(issue.path ?? ''));
    // The first reason whole (its code and params too: the app says it in the person's language).
    const reason: Issue = error.issues.find((issue) => issue.message) ?? { message: error.message };
    // Issues that name no value (a site no longer the person's, a form gone) stand beside each value.
    const each = item.targets.map((_, index) => ({ ...reason, path: `values.${index}` }));
    const issues = named.length ? error.issues : each.length ? each : [reason];
    await update({ ...item, state: 'refused', issues, answeredAt: new Date().toISOString() });
    return 'sent';
  }
}

/** Flushes on start, when the connection returns, and when Background Sync wakes the page. */
let started = false;
export function startOutbox() {
  if (!started) {
    started = true;
    window.addEventListener('online', () => flush());
    navigator.serviceWorker?.addEventListener('message', (event) => {
      if (event.data?.type === 'sdcs-outbox-flush') flush();
    });
  }
  flush();
}
