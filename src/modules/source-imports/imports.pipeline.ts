import { isDeepStrictEqual } from 'node:util';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { invalidField } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { roundStored } from '../../lib/numbers.ts';
import { Turns } from '../../lib/turns.ts';
import { siteScope } from '../access/index.ts';
import {
  type ActivityInput,
  type CalcJob,
  type CalcOutcome,
  type CalcSession,
  failed,
  failureMessage,
  MAX_ACTIVITIES_PER_VALUE,
} from '../activities/index.ts';
import type { ActivityDefinition } from '../activity-definitions/index.ts';
import { getDefinitionForCalculation } from '../activity-definitions/index.ts';
import { forms as formsRepository } from '../forms/index.ts';
import type { Checked, ElementInfo, ValuesPipeline } from '../values/index.ts';
import type { Mapping } from './adapters.schemas.ts';
import { importsRepository as repo } from './imports.repository.ts';
import {
  type Candidate,
  type Catalog,
  type FormInfo,
  type ImportSiteInfo,
  mappingFor,
  resolveRow,
} from './imports.resolve.ts';
import type { Counts, ImportBody, MissingFormSite, Readiness, RowIssue } from './imports.schemas.ts';

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

/** What an import finds; identical for a preview and an execute of the same request. */
export interface Analysis {
  counts: Omit<Counts, 'imported'>;
  issues: RowIssue[];
  drafts: Draft[];
  readiness: Readiness;
}

async function loadCatalog(
  tx: Tx,
  caller: Caller,
  mapping: Mapping,
  body: ImportBody,
  pipeline: ValuesPipeline,
): Promise<{ catalog: Catalog; basis: unknown }> {
  const org = caller.organizationId;
  const [sites, units, scope] = await Promise.all([
    repo.sites(tx, org),
    repo.units(tx, org),
    siteScope(tx, caller),
  ]);
  const sitesById = new Map(sites.map((s) => [s.id, s as ImportSiteInfo]));
  const contextSite = body.context?.siteId;
  if (contextSite !== undefined && !(isUuid(contextSite) && sitesById.has(contextSite.toLowerCase()))) {
    throw invalidField('context.siteId', 'context.siteId is not a site of this organization');
  }
  // The organization's own unit wins over a catalog unit of the same symbol.
  const unitsBySymbol = new Map<string, { id: string }>();
  for (const u of [...units].sort(
    (a, b) => Number(a.organization_id !== null) - Number(b.organization_id !== null),
  ))
    unitsBySymbol.set(u.symbol, u);

  const byId = new Map(
    (
      await repo.formsById(
        tx,
        org,
        mapping.sheets.flatMap((s) => ('id' in s.form && isUuid(s.form.id) ? [s.form.id] : [])),
      )
    ).map((f) => [f.id, f]),
  );
  const formRows: ({ id: string; name: string; period_type: FormInfo['period_type'] } | string)[] = [];
  for (const s of mapping.sheets) {
    if ('id' in s.form) {
      formRows.push(byId.get(s.form.id.toLowerCase()) ?? `The mapping’s form ${s.form.id} no longer exists`);
      continue;
    }
    const found = await repo.formsByMetadata(tx, org, s.form.metadataKey, s.form.metadataValue);
    formRows.push(
      found.length === 1
        ? found[0]!
        : `${found.length === 0 ? 'No form' : 'More than one form'} has metadata ${s.form.metadataKey} = "${s.form.metadataValue}"`,
    );
  }
  const formIds = [...new Set(formRows.flatMap((f) => (typeof f === 'string' ? [] : [f.id])))];
  const elements = await formsRepository.elements(tx, org, formIds);
  const forms = new Map<string, FormInfo>();
  for (const id of formIds) {
    const row = formRows.find((f) => typeof f !== 'string' && f.id === id) as Exclude<
      (typeof formRows)[number],
      string
    >;
    forms.set(id, {
      id,
      name: row.name,
      period_type: row.period_type,
      elements: new Map(elements.filter((e) => e.form_id === id).map((e) => [e.key, e as ElementInfo])),
    });
  }
  const definitions = new Map<string, ActivityDefinition | undefined>();
  for (const e of elements) {
    const id = e.activity_definition_id;
    if (e.type === 'ACTIVITY' && id && !definitions.has(id))
      definitions.set(id, await getDefinitionForCalculation(tx, org, id));
  }
  const catalog: Catalog = {
    caller,
    scope,
    context: body.context ?? {},
    forms: formRows.map((f) => (typeof f === 'string' ? f : forms.get(f.id)!)),
    sites: sites as ImportSiteInfo[],
    sitesById,
    siteIndexes: new Map(),
    unitsBySymbol,
    units: new Map(units.map((u) => [u.id, u])),
    definitions,
    handlers: pipeline.handlers,
  };
  // Everything a row's resolution depends on besides the row (the mapping and body are the request's).
  return { catalog, basis: { sites, units, scope, formRows, elements, definitions } };
}

/** The calculation of each activity candidate. */
function jobsOf(activities: Candidate[]): CalcJob[] {
  return activities.map((c) => ({
    source: {
      id: c.definition!.id,
      calcCode: c.definition!.calcCode,
      metadataSchema: c.definition!.metadataSchema ?? null,
    },
    input: c.input!,
    context: {
      year: c.year,
      periodUnit: c.periodUnit,
      site: { id: c.site.id, name: c.site.name, metadata: c.site.metadata },
    },
  }));
}

/** The candidates whose calculation did not fail; failures become issues. */
function withoutFailures(
  candidates: Candidate[],
  activities: Candidate[],
  outcomes: (CalcOutcome | undefined)[],
  issues: RowIssue[],
): Candidate[] {
  const failedRows = new Set<Candidate>();
  outcomes.forEach((outcome, i) => {
    if (!outcome || !failed(outcome)) return;
    const c = activities[i]!;
    failedRows.add(c);
    issues.push({
      sheet: c.sheet,
      rowIndex: c.rowIndex,
      message: `${c.element.key}: ${failureMessage(outcome)}`,
    });
  });
  return failedRows.size === 0 ? candidates : candidates.filter((c) => !failedRows.has(c));
}

const slotOf = (c: Candidate) => `${c.form.id}|${c.site.id}|${c.year}|${c.element.id}|${c.periodUnit}`;

/** Merges form-value rows that land on one slot (`sum` or `last`); each activity row is its own draft. */
async function reduce(
  candidates: Candidate[],
  issues: RowIssue[],
): Promise<{ drafts: Draft[]; reduced: number; failed: number }> {
  const drafts: Draft[] = [];
  const values = new Map<string, { draft: Draft; sum: number; trail: UnitTrail | null }>();
  const perSlot = new Map<string, number>();
  let reduced = 0;
  let failedCount = 0;
  const turns = new Turns();
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
async function readinessOf(tx: Tx, organizationId: string, drafts: Draft[]): Promise<Readiness> {
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

/** The rows of a request resolved and checked against one catalog (before any calculation). */
interface ResolvedRows {
  total: number;
  skipped: number;
  candidates: Candidate[];
  issues: RowIssue[];
}

/**
 * What an import's attempts share: the rows resolved by an earlier attempt and what they were
 * resolved against. A later attempt whose catalog is the same reuses them: each row is checked once.
 */
export interface RowsMemo {
  basis?: unknown;
  rows?: ResolvedRows;
}

/**
 * Resolves every row, giving the event loop a turn every few milliseconds (decision 0165): the
 * rows of a 10,000-row import took 60-300 ms in one piece. The order of the outcomes is the rows'.
 */
async function resolveRows(mapping: Mapping, body: ImportBody, catalog: Catalog): Promise<ResolvedRows> {
  const issues: RowIssue[] = [];
  const candidates: Candidate[] = [];
  const turns = new Turns();
  let total = 0;
  let skipped = 0;
  for (const sheet of body.sheets) {
    total += sheet.rows.length;
    const index = mappingFor(mapping.sheets, sheet.name);
    if (index < 0) {
      for (let rowIndex = 0; rowIndex < sheet.rows.length; rowIndex++) {
        issues.push({
          sheet: sheet.name,
          rowIndex,
          message: `No mapping entry matches the sheet "${sheet.name}"`,
        });
      }
      continue;
    }
    const entry = mapping.sheets[index]!;
    for (let rowIndex = 0; rowIndex < sheet.rows.length; rowIndex++) {
      if (turns.due()) await turns.give();
      const outcome = resolveRow(sheet.name, rowIndex, sheet.rows[rowIndex]!, index, entry, catalog);
      if (outcome === 'skip') skipped++;
      else if ('message' in outcome) issues.push(outcome);
      else candidates.push(outcome);
    }
  }
  return { total, skipped, candidates, issues };
}

/**
 * parse -> resolve -> validate -> calculate -> reduce -> drafts, and readiness. Reads only: a
 * preview stops here, an execute writes what this returns, so both see the same counts and issues.
 * Calculations are not run here (this runs in a transaction): when some are missing, or what
 * they looked up has changed, answers the jobs to compute before the next attempt.
 */
export async function analyse(
  tx: Tx,
  caller: Caller,
  mapping: Mapping,
  body: ImportBody,
  pipeline: ValuesPipeline,
  session: CalcSession,
  memo: RowsMemo,
): Promise<Analysis | { jobs: CalcJob[] }> {
  const { catalog, basis } = await loadCatalog(tx, caller, mapping, body, pipeline);
  if (!memo.rows || !isDeepStrictEqual(memo.basis, basis)) {
    memo.rows = await resolveRows(mapping, body, catalog);
    memo.basis = basis;
  }
  const { total, skipped } = memo.rows;
  const issues = [...memo.rows.issues];
  const activities = memo.rows.candidates.filter((c) => c.kind === 'activity');
  const jobs = jobsOf(activities);
  if (session.missing(jobs).length > 0 || !(await session.verify(tx))) return { jobs };
  const candidates = withoutFailures(memo.rows.candidates, activities, session.outcomes(jobs), issues);
  const { drafts, reduced, failed: overflow } = await reduce(candidates, issues);
  const parsed = candidates.length - overflow;
  const sheetOrder = new Map(body.sheets.map((s, i) => [s.name, i]));
  issues.sort((a, b) => sheetOrder.get(a.sheet)! - sheetOrder.get(b.sheet)! || a.rowIndex - b.rowIndex);
  return {
    counts: { total, parsed, ready: parsed - reduced, reduced, skipped, failed: total - skipped - parsed },
    issues,
    drafts,
    readiness: await readinessOf(tx, caller.organizationId, drafts),
  };
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
