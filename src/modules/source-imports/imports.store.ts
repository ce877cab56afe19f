import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { formSitesRepository } from '../form-sites/index.ts';
import {
  type SubmitBody,
  type SubmitValue,
  storeValueSets,
  type ValuesPipeline,
} from '../submissions/index.ts';
import type { Draft } from './imports.pipeline.ts';

/** Activates the (form, site, year) triples the drafts need. */
export async function createFormSites(
  tx: Tx,
  organizationId: string,
  missing: { formId: string; siteId: string; year: number }[],
) {
  const byForm = new Map<string, { siteId: string; year: number }[]>();
  for (const m of missing) {
    const list = byForm.get(m.formId) ?? [];
    list.push({ siteId: m.siteId, year: m.year });
    byForm.set(m.formId, list);
  }
  for (const [formId, pairs] of byForm) await formSitesRepository.activate(tx, organizationId, formId, pairs);
}

/**
 * The one place where an import writes form values and activities: exactly what a submission
 * through the API writes (the submissions' values pipeline: same checks, same history), one body
 * per (form, site, year), all of them in one `storeValueSets` call whose statements are shared
 * (a few per import, not per form-site). The activities of one element and period form that
 * period's set.
 */
export async function storeDrafts(
  tx: Tx,
  caller: Caller,
  drafts: Draft[],
  pipeline: ValuesPipeline,
): Promise<{ formValues: number; activities: number }> {
  const groups = new Map<string, Draft[]>();
  for (const d of drafts) {
    const key = `${d.form.id}|${d.site.id}|${d.year}`;
    const list = groups.get(key);
    if (list) list.push(d);
    else groups.set(key, [d]);
  }
  let formValues = 0;
  let activities = 0;
  const bodies: SubmitBody[] = [];
  for (const group of groups.values()) {
    const first = group[0]!;
    const values: SubmitValue[] = [];
    const sets = new Map<string, ActivitySet>();
    for (const d of group) {
      if (d.kind === 'form_value') {
        values.push({
          elementId: d.element.id,
          periodUnit: d.periodUnit,
          value: d.value,
          ...(d.selectedUnitId ? { selectedUnitId: d.selectedUnitId } : {}),
        });
        formValues++;
        continue;
      }
      const slot = `${d.element.id}|${d.periodUnit}`;
      let set = sets.get(slot);
      if (!set) {
        set = { elementId: d.element.id, periodUnit: d.periodUnit, value: [] };
        sets.set(slot, set);
        values.push(set);
      }
      set.value.push(d.input);
      activities++;
    }
    bodies.push({ formId: first.form.id, siteId: first.site.id, year: first.year, values });
  }
  // The import is one transaction: every step of the values pipeline runs in it.
  if (bodies.length > 0) {
    await storeValueSets(pipeline, (fn) => fn(tx), caller, bodies, undefined, { answer: false });
  }
  return { formValues, activities };
}

type ActivitySet = SubmitValue & { value: unknown[] };
