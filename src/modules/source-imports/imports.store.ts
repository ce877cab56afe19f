import type { Tx } from '../../db/client.ts';
import { badRequest, coded } from '../../domain/errors.ts';
import { groupBy } from '../../lib/group-by.ts';
import { Turns } from '../../lib/turns.ts';
import { formSites } from '../form-sites/index.ts';
import type { PlannedValue, ResolvedBatch, ResolvedEntry } from '../values/index.ts';
import { numberRuleIssue, resolveTargets } from '../values/index.ts';
import type { Draft } from './imports.reduce.ts';

/** Activates the (form, site, year) triples the drafts need. */
export async function createFormSites(
  tx: Tx,
  organizationId: string,
  missing: { formId: string; siteId: string; year: number }[],
) {
  const byForm = groupBy(
    missing,
    (m) => m.formId,
    (m) => ({ siteId: m.siteId, year: m.year }),
  );
  for (const [formId, pairs] of byForm) await formSites.activate(tx, organizationId, formId, pairs);
}

/**
 * The values pipeline's batch of the drafts: one entry per (form, site, year), its targets
 * resolved in one statement (after `createFormSites`), each draft's value as checked when its row
 * was (no second check); the activities of one element and period form that period's list.
 * Each planned value names the run `runId` and the rows it was made from (its `source`); a value
 * refused here is a 400 naming its first row in the request (`sheets.S.rows.R`, `sheetNames` being
 * the request's sheets in order).
 */
export async function batchOf(
  tx: Tx,
  organizationId: string,
  drafts: Draft[],
  runId: string,
  sheetNames: readonly string[],
  signal?: AbortSignal,
): Promise<{ batch: ResolvedBatch; formValues: number; activities: number }> {
  const groups = groupBy(drafts, (d) => `${d.form.id}|${d.site.id}|${d.year}`);
  const firsts = [...groups.values()].map((g) => g[0]!);
  const { targets } = await resolveTargets(
    tx,
    organizationId,
    firsts.map((d) => ({ formId: d.form.id, siteId: d.site.id, year: d.year, values: [] })),
  );
  let formValues = 0;
  let activities = 0;
  const entries: ResolvedEntry[] = [];
  const turns = new Turns(undefined, signal);
  const rowPath = ({ sheet, rowIndex }: { sheet: string; rowIndex: number }) =>
    `sheets.${sheetNames.indexOf(sheet)}.rows.${rowIndex}`;
  for (const [n, group] of [...groups.values()].entries()) {
    // A turn of the loop between (form, site, year) groups when due (decision 0165).
    if (turns.due()) await turns.give();
    const resolved = targets[n]!;
    if ('error' in resolved) throw resolved.error;
    if (!resolved.formSiteId) {
      const message = 'A form-site of the import is not active';
      throw badRequest(message, [coded('import.formSiteInactive', message, undefined, 'year')]);
    }
    const planned: PlannedValue[] = [];
    const lists = new Map<string, PlannedValue>();
    for (const d of group) {
      const index = planned.length;
      if (d.kind === 'form_value') {
        const value = d.checked!.value;
        if (typeof value === 'number' && !Number.isFinite(value)) {
          const rows = d.rows.map((r) => r.rowIndex).join(', ');
          const message = `${d.element.key}: the rows ${rows} of ${d.rows[0]!.sheet} add up to more than a number can hold`;
          throw badRequest('Invalid values', [
            coded(
              'import.sumTooLarge',
              message,
              { element: d.element.key, rows, sheet: d.rows[0]!.sheet },
              rowPath(d.rows[0]!),
            ),
          ]);
        }
        // Each row was checked against the element's rules; rows that add up are checked again.
        const broken =
          typeof value === 'number' && d.rows.length > 1
            ? numberRuleIssue(d.element, value, undefined)
            : null;
        if (broken) {
          // The rule's code and params (the sum as `value`): said as a submitted value's would be.
          const message = `${broken.message}: the rows ${d.rows.map((r) => r.rowIndex).join(', ')} of ${d.rows[0]!.sheet} add up to ${value}`;
          throw badRequest('Invalid values', [
            coded(broken.code, message, broken.params, rowPath(d.rows[0]!)),
          ]);
        }
        // One literal of one shape (no spread): this runs once per row, 10,000 times in an import.
        planned.push({
          index,
          element: d.element,
          periodUnit: d.periodUnit,
          timestamp: null,
          checked: d.checked!,
          selectedUnitId: d.selectedUnitId ?? null,
          source: { runId, rows: d.rows },
        });
        formValues++;
        continue;
      }
      const slot = `${d.element.id}|${d.periodUnit}`;
      let list = lists.get(slot);
      if (!list) {
        list = {
          index,
          element: d.element,
          periodUnit: d.periodUnit,
          timestamp: null,
          checked: { value: [], originalValue: null, numericValue: null },
          selectedUnitId: null,
          source: { runId, rows: [] },
        };
        lists.set(slot, list);
        planned.push(list);
      }
      (list.checked!.value as unknown[]).push(d.input);
      list.source!.rows.push(...d.rows);
      activities++;
    }
    const target = {
      formId: resolved.formId,
      formSiteId: resolved.formSiteId,
      siteId: resolved.siteId,
      year: group[0]!.year,
    };
    entries.push({ target, planned, issues: [] });
  }
  return { batch: { entries }, formValues, activities };
}
