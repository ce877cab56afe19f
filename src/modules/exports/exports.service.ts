import type { Engine, TenantRun, Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { activityColumns, datasetNames, inputColumns } from './activities.export.ts';
import { type Column, HISTORY_COLUMNS, VALUE_COLUMNS } from './exports.columns.ts';
import { exportContext } from './exports.filters.ts';
import type { RowWriter } from './exports.formats.ts';
import type { ExportQuery } from './exports.schemas.ts';
import { type ExportSource, writeSource } from './exports.source.ts';
import { valueLookups } from './values.export.ts';

/** An export whose filters are checked: its columns, and how to read its rows into a writer. */
export interface ExportPlan {
  /** The file name without extension, e.g. `values-2024`. */
  name: string;
  columns: Column[];
  /** What it reads, as data: a heavy-work worker can read it on a connection of its own. */
  source: ExportSource;
  write(engine: Engine, run: TenantRun, signal: AbortSignal, writer: RowWriter): Promise<void>;
}

function planOf(name: string, columns: Column[], source: ExportSource): ExportPlan {
  return {
    name,
    columns,
    source,
    write: (engine, run, signal, writer) => writeSource(source, engine, run, signal, writer),
  };
}

/** GET /exports/values: checks the filters (in the request's first transaction). */
export async function valuesExport(tx: Tx, caller: Caller, query: ExportQuery): Promise<ExportPlan> {
  const ctx = await exportContext(tx, caller, { ...query, key: undefined });
  const lookups = await valueLookups(tx, ctx);
  return planOf(`values-${ctx.year}`, VALUE_COLUMNS, { kind: 'values', ctx, lookups });
}

/** GET /exports/activities: the filters, and the input columns of the definitions met. */
export async function activitiesExport(tx: Tx, caller: Caller, query: ExportQuery): Promise<ExportPlan> {
  const ctx = await exportContext(tx, caller, query);
  const inputs = await inputColumns(tx, ctx);
  const datasets = await datasetNames(tx, ctx.organizationId);
  return planOf(`activities-${ctx.year}`, activityColumns(inputs.columns), {
    kind: 'activities',
    ctx,
    inputNames: inputs.names,
    datasets,
  });
}

/** GET /exports/history: the changes of values, then those of activities, each in order. */
export async function historyExport(tx: Tx, caller: Caller, query: ExportQuery): Promise<ExportPlan> {
  const ctx = await exportContext(tx, caller, { ...query, key: undefined, statuses: undefined });
  return planOf(`history-${ctx.year}`, HISTORY_COLUMNS, { kind: 'history', ctx });
}
