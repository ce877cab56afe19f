// Drafts of the entry screen, kept in this browser's IndexedDB as they are typed: one record per
// (organization, person, form, site, year, period), holding only the elements that differ from
// what the service had stored. A record outlives a reload, a closed tab and an ended session; it
// goes away when nothing in it differs from the stored values any more (the service stored it).
import { createStore, del, get, set } from 'idb-keyval';

let store: ReturnType<typeof createStore> | null = null;
const drafts = () => {
  store ??= createStore('sdcs-drafts', 'drafts');
  return store;
};

/** The record's key: never shared between people or organizations on the same browser. */
export type DraftRecord = { savedAt: string; changes: Record<string, object> };

export const draftKey = ({
  organizationId,
  userId,
  formId,
  siteId,
  year,
  periodUnit,
}: {
  organizationId: string | null;
  userId: string;
  formId: string;
  siteId: string;
  year: number;
  periodUnit: number;
}) => ['draft', organizationId, userId, formId, siteId, year, periodUnit].join(':');

/** The kept draft `{ savedAt, changes: { [elementKey]: draft } }`, or null (also when IndexedDB is unavailable). */
export async function readDraft(key: string): Promise<DraftRecord | null> {
  try {
    return (await get<DraftRecord>(key, drafts())) ?? null;
  } catch {
    return null;
  }
}

/** Keeps the changed elements (or forgets the record when there are none). */
export async function writeDraft(key: string, changes: Record<string, object>) {
  try {
    if (Object.keys(changes).length === 0) await del(key, drafts());
    else await set(key, { savedAt: new Date().toISOString(), changes }, drafts());
  } catch {
    // A browser without IndexedDB (private mode of some) still enters data; only drafts are lost.
  }
}

/** The elements whose draft differs from the stored one. */
export function changedDrafts(
  current: Record<string, object> | null | undefined,
  original: Record<string, object> | null | undefined,
): Record<string, object> {
  const changes: Record<string, object> = {};
  for (const [key, draft] of Object.entries(current ?? {})) {
    if (original?.[key] && JSON.stringify(draft) !== JSON.stringify(original[key])) changes[key] = draft;
  }
  return changes;
}

/**
 * Of a kept draft, the elements that still differ from what the service now stores (a value saved
 * from another tab or device is no longer offered).
 */
export function restorable(
  kept: { changes?: Record<string, object> } | null | undefined,
  original: Record<string, object>,
): Record<string, object> {
  if (!kept?.changes) return {};
  const left: Record<string, object> = {};
  for (const [key, draft] of Object.entries(kept.changes)) {
    if (original[key] && JSON.stringify({ ...original[key], ...draft }) !== JSON.stringify(original[key])) {
      left[key] = draft;
    }
  }
  return left;
}
