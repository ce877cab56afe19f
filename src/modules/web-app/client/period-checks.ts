// Helpers of the entry screen (period.ts): when a left field shows its messages, which changed
// values the service's check may see, and whether a kept number is the stored one.
import { periodLabel } from './format.js';
import { readNumber } from './numbers.js';
import { isPendingFile } from './offline/outbox.js';
import {
  changedValues,
  type Draft,
  type Drafts,
  type PeriodData,
  type SendValue,
  type Target,
} from './period-data.js';
import { localIssues } from './rules.js';

// A field is left on the pointer's press (mousedown), its click comes on release: an error shown in
// between moves the page under the pointer, and the click would land elsewhere. Messages of a field
// left by pointer appear once the press is over.
const pointer: { down: boolean; queue: (() => void)[] } = { down: false, queue: [] };
export function afterPointer(show: () => void) {
  if (pointer.down) pointer.queue.push(show);
  else show();
}
export function watchPointer() {
  const down = () => {
    pointer.down = true;
  };
  const up = () => {
    pointer.down = false;
    const queued = pointer.queue.splice(0);
    setTimeout(() => {
      for (const show of queued) show();
    }, 0);
  };
  document.addEventListener('pointerdown', down, true);
  document.addEventListener('pointerup', up, true);
  document.addEventListener('pointercancel', up, true);
  return () => {
    document.removeEventListener('pointerdown', down, true);
    document.removeEventListener('pointerup', up, true);
    document.removeEventListener('pointercancel', up, true);
  };
}

/** Two NUMBER drafts that read as the same number in the same unit, without a comment. */
export function sameNumber(a: Draft, b: Draft | undefined) {
  const [x, y] = [readNumber(a.text), readNumber(b?.text)];
  return !x.error && x.value === y.value && (a.unitId ?? '') === (b?.unitId ?? '') && !a.comment?.trim();
}

/** The changed values the service may see: never one whose field fails its own checks. */
export function sendableValues(
  { data, drafts, original }: { data: PeriodData | null; drafts: Drafts | null; original: Drafts | null },
  context: { year: number; periodUnit: number; locale: string },
) {
  if (!data || !drafts) return { values: [], targets: [] };
  const title = periodLabel(data.form.periodType, context.year, context.periodUnit);
  const ctx = { ...context, periodType: data.form.periodType, title };
  const bad = new Set(
    data.form.elements.filter((e) => localIssues(e, drafts[e.key] ?? {}, data, ctx).length).map((e) => e.key),
  );
  return changedValues(data, drafts, original ?? {}, context.periodUnit, bad);
}

/** What the check may see: a file picked offline is not on the service yet. */
export function withoutPendingFiles({ values, targets }: { values: SendValue[]; targets: Target[] }) {
  const keep = values.map((v) => !isPendingFile(v.value));
  return { values: values.filter((_, i) => keep[i]), targets: targets.filter((_, i) => keep[i]) };
}
