import { isDeepStrictEqual } from 'node:util';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { Turns } from '../../lib/turns.ts';
import {
  type CalcJob,
  type CalcOutcome,
  type CalcSession,
  failed,
  failureMessage,
} from '../activities/index.ts';
import type { ValuesPipeline } from '../values/index.ts';
import type { Mapping } from './adapters.schemas.ts';
import { type Catalog, loadCatalog } from './imports.catalog.ts';
import { mappingFor } from './imports.cells.ts';
import { type Draft, readinessOf, reduce } from './imports.reduce.ts';
import { type Candidate, resolveRow } from './imports.resolve.ts';
import type { Counts, ImportBody, Readiness, RowIssue } from './imports.schemas.ts';

/** What an import finds; identical for a preview and an execute of the same request. */
export interface Analysis {
  counts: Omit<Counts, 'imported'>;
  issues: RowIssue[];
  drafts: Draft[];
  readiness: Readiness;
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
    const detail = failureMessage(outcome);
    issues.push({
      sheet: c.sheet,
      rowIndex: c.rowIndex,
      message: `${c.element.key}: ${detail}`,
      code: 'import.calculationFailed',
      params: { element: c.element.key, detail },
    });
  });
  return failedRows.size === 0 ? candidates : candidates.filter((c) => !failedRows.has(c));
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
async function resolveRows(
  mapping: Mapping,
  body: ImportBody,
  catalog: Catalog,
  signal: AbortSignal | undefined,
): Promise<ResolvedRows> {
  const issues: RowIssue[] = [];
  const candidates: Candidate[] = [];
  const turns = new Turns(undefined, signal);
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
          code: 'import.sheetUnmapped',
          params: { sheet: sheet.name },
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
  signal?: AbortSignal,
): Promise<Analysis | { jobs: CalcJob[] }> {
  const { catalog, basis } = await loadCatalog(tx, caller, mapping, body, pipeline);
  if (!memo.rows || !isDeepStrictEqual(memo.basis, basis)) {
    memo.rows = await resolveRows(mapping, body, catalog, signal);
    memo.basis = basis;
  }
  const { total, skipped } = memo.rows;
  const issues = [...memo.rows.issues];
  const activities = memo.rows.candidates.filter((c) => c.kind === 'activity');
  const jobs = jobsOf(activities);
  if (session.missing(jobs).length > 0 || !(await session.verify(tx))) return { jobs };
  const candidates = withoutFailures(memo.rows.candidates, activities, session.outcomes(jobs), issues);
  const { drafts, reduced, failed: overflow } = await reduce(candidates, issues, signal);
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
