// Drafts of the entry screen, kept in this browser's IndexedDB as they are typed: one record per
// (organization, person, form, site, year, period), holding only the elements that differ from
// what the service had stored. A record outlives a reload, a closed tab and an ended session; it
// goes away when nothing in it differs from the stored values any more (the service stored it).
import { createStore, del, get, set } from 'idb-keyval';

let store = null;
const drafts = () => {
  store ??= createStore('sdcs-drafts', 'drafts');
  return store;
};

/** The record's key: never shared between people or organizations on the same browser. */
export const draftKey = ({ organizationId, userId, formId, siteId, year, periodUnit }) =>
  ['draft', organizationId, userId, formId, siteId, year, periodUnit].join(':');

/** The kept draft `{ savedAt, changes: { [elementKey]: draft } }`, or null (also when IndexedDB is unavailable). */
export async function readDraft(key) {
  try {
    return (await get(key, drafts())) ?? null;
  } catch {
    return null;
  }
}

/** Keeps the changed elements (or forgets the record when there are none). */
export async function writeDraft(key, changes) {
  try {
    if (Object.keys(changes).length === 0) await del(key, drafts());
    else await set(key, { savedAt: new Date().toISOString(), changes }, drafts());
  } catch {
    // A browser without IndexedDB (private mode of some) still enters data; only drafts are lost.
  }
}

/** The elements whose draft differs from the stored one. */
export function changedDrafts(current, original) {
  const changes = {};
  for (const [key, draft] of Object.entries(current ?? {})) {
    if (original?.[key] && JSON.stringify(draft) !== JSON.stringify(original[key])) changes[key] = draft;
  }
  return changes;
}

/**
 * Of a kept draft, the elements that still differ from what the service now stores (a value saved
 * from another tab or device is no longer offered).
 */
export function restorable(kept, original) {
  if (!kept?.changes) return {};
  const left = {};
  for (const [key, draft] of Object.entries(kept.changes)) {
    if (original[key] && JSON.stringify({ ...original[key], ...draft }) !== JSON.stringify(original[key])) {
      left[key] = draft;
    }
  }
  return left;
}
