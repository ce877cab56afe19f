import type { Tx } from '../../db/client.ts';
import { roundStored } from '../../lib/numbers.ts';
import { Turns } from '../../lib/turns.ts';
import { type ActivityInput, MAX_ACTIVITIES_PER_VALUE } from '../activities/index.ts';
import type { Checked, ElementInfo } from '../values/index.ts';
import type { FormInfo, ImportSiteInfo } from './imports.catalog.ts';
import { importsRepository as repo } from './imports.repository.ts';
import type { Candidate } from './imports.resolve.ts';
import type { MissingFormSite, Readiness, RowIssue } from './imports.schemas.ts';

/** A draft ready to write: one form value (maybe reduced from several rows) or one activity. */
export interface Draft {
  kind: 'form_value' | 'activity';
  form: FormInfo;
  site: ImportSiteInfo;
  year: number;
  periodUnit: number;
  element: ElementInfo;
  rows: { sheet: string; rowIndex: number }[];
  /** form_value: what to store (checked when its row was; a sum is in the element's unit). */
  checked?: Checked;
  selectedUnitId?: string | null;
  /** activity: its input object. */
  input?: ActivityInput;
}

const slotOf = (c: Candidate) => `${c.form.id}|${c.site.id}|${c.year}|${c.element.id}|${c.periodUnit}`;

/** Merges form-value rows that land on one slot (`sum` or `last`); each activity row is its own draft. */
export async function reduce(
  candidates: Candidate[],
  issues: RowIssue[],
  signal?: AbortSignal,
): Promise<{ drafts: Draft[]; reduced: number; failed: number }> {
  const drafts: Draft[] = [];
  const values = new Map<string, { draft: Draft; sum: number; trail: UnitTrail | null }>();
  const perSlot = new Map<string, number>();
  let reduced = 0;
  let failedCount = 0;
  const turns = new Turns(undefined, signal);
  for (const c of candidates) {
    if (turns.due()) await turns.give();
    const slot = slotOf(c);
    const row = { sheet: c.sheet, rowIndex: c.rowIndex };
    if (c.kind === 'activity') {
      const n = (perSlot.get(slot) ?? 0) + 1;
      perSlot.set(slot, n);
      if (n > MAX_ACTIVITIES_PER_VALUE) {
        failedCount++;
        issues.push({
          ...row,
          message: `More than ${MAX_ACTIVITIES_PER_VALUE} activities land on one element and period`,
          code: 'import.tooManyActivities',
          params: { max: MAX_ACTIVITIES_PER_VALUE },
        });
        continue;
      }
      drafts.push({
        kind: 'activity',
        form: c.form,
        site: c.site,
        year: c.year,
        periodUnit: c.periodUnit,
        element: c.element,
        rows: [row],
        input: c.input!,
      });
      continue;
    }
    const earlier = values.get(slot);
    const canonical = c.checked!.value;
    if (!earlier) {
      const draft: Draft = {
        kind: 'form_value',
        form: c.form,
        site: c.site,
        year: c.year,
        periodUnit: c.periodUnit,
        element: c.element,
        rows: [row],
        checked: c.checked!,
        selectedUnitId: c.selectedUnitId ?? null,
      };
      drafts.push(draft);
      values.set(slot, { draft, sum: typeof canonical === 'number' ? canonical : 0, trail: trailOf(c) });
      continue;
    }
    reduced++;
    earlier.draft.rows.push(row);
    if (c.reduce === 'sum' && c.element.type === 'NUMBER') {
      // A sum is kept in the element's unit: the values were converted before adding.
      earlier.sum += canonical as number;
      // The unit trail survives while every row was entered in the same unit (decision 184).
      const next = trailOf(c);
      earlier.trail =
        earlier.trail && next && earlier.trail.unitId === next.unitId
          ? { unitId: next.unitId, sent: roundStored(earlier.trail.sent + next.sent) }
          : null;
      earlier.draft.checked = {
        value: earlier.sum,
        originalValue: earlier.trail?.unitId ? earlier.trail.sent : null,
        numericValue: earlier.sum,
      };
      earlier.draft.selectedUnitId = earlier.trail?.unitId ?? null;
    } else {
      earlier.sum = typeof canonical === 'number' ? canonical : 0;
      earlier.trail = trailOf(c);
      earlier.draft.checked = c.checked!;
      earlier.draft.selectedUnitId = c.selectedUnitId ?? null;
    }
  }
  return { drafts, reduced, failed: failedCount };
}

/** Drafts whose (form, site, year) is not active. */
export async function readinessOf(tx: Tx, organizationId: string, drafts: Draft[]): Promise<Readiness> {
  const active = new Set(
    (await repo.activeFormSites(tx, organizationId, [...new Set(drafts.map((d) => d.form.id))])).map(
      (a) => `${a.form_id}|${a.site_id}|${a.year}`,
    ),
  );
  const missing = new Map<string, MissingFormSite & { rowSet: Set<string>; indexSet: Set<number> }>();
  for (const d of drafts) {
    const key = `${d.form.id}|${d.site.id}|${d.year}`;
    if (active.has(key)) continue;
    let entry = missing.get(key);
    if (!entry) {
      entry = {
        formId: d.form.id,
        formName: d.form.name,
        siteId: d.site.id,
        siteName: d.site.name,
        year: d.year,
        rowCount: 0,
        draftKinds: [],
        targetKeys: [],
        rowIndexes: [],
        rowSet: new Set(),
        indexSet: new Set(),
      };
      missing.set(key, entry);
    }
    if (!entry.draftKinds.includes(d.kind)) entry.draftKinds.push(d.kind);
    if (!entry.targetKeys.includes(d.element.key)) entry.targetKeys.push(d.element.key);
    for (const r of d.rows) {
      entry.rowSet.add(`${r.sheet}|${r.rowIndex}`);
      entry.indexSet.add(r.rowIndex);
    }
  }
  const missingFormSites = [...missing.values()].map(({ rowSet, indexSet, ...rest }) => ({
    ...rest,
    rowCount: rowSet.size,
    rowIndexes: [...indexSet].sort((a, b) => a - b),
  }));
  return { requiresMissingFormSiteConfirmation: missingFormSites.length > 0, missingFormSites };
}

/** The unit a summed row was entered in and its number as entered (null: not a converted number). */
interface UnitTrail {
  /** null: entered in the element's own unit. */
  unitId: string | null;
  sent: number;
}

function trailOf(c: Candidate): UnitTrail | null {
  if (typeof c.sentValue !== 'number') return null;
  const converted = c.checked?.originalValue !== null && c.checked?.originalValue !== undefined;
  return { unitId: converted ? (c.selectedUnitId ?? null) : null, sent: c.sentValue };
}
