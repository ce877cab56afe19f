import type { Engine, TenantRun, Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import {
  activitiesQuery,
  activityCells,
  activityColumns,
  datasetNames,
  inputColumns,
} from './activities.export.ts';
import { type Column, type ExportRow, HISTORY_COLUMNS, VALUE_COLUMNS } from './exports.columns.ts';
import { exportContext } from './exports.filters.ts';
import type { RowWriter } from './exports.formats.ts';
import { readPages } from './exports.reader.ts';
import type { ExportQuery } from './exports.schemas.ts';
import { changeCells, historyQuery } from './history.export.ts';
import { valueCells, valueLookups, valuesQuery } from './values.export.ts';

/** An export whose filters are checked: its columns, and how to read its rows into a writer. */
export interface ExportPlan {
  /** The file name without extension, e.g. `values-2024`. */
  name: string;
  columns: Column[];
  write(engine: Engine, run: TenantRun, signal: AbortSignal, writer: RowWriter): Promise<void>;
}

/** GET /exports/values: checks the filters (in the request's first transaction). */
export async function valuesExport(tx: Tx, caller: Caller, query: ExportQuery): Promise<ExportPlan> {
  const ctx = await exportContext(tx, caller, { ...query, key: undefined });
  const lookups = await valueLookups(tx, ctx);
  return {
    name: `values-${ctx.year}`,
    columns: VALUE_COLUMNS,
    write: (engine, run, signal, writer) =>
      readPages(engine, run, valuesQuery(ctx, lookups), signal, (rows) => {
        const cells: ExportRow[] = [];
        for (const r of rows) {
          const row = valueCells(r, ctx, lookups);
          if (row) cells.push(row);
        }
        return writer.rows(cells);
      }),
  };
}

/** GET /exports/activities: the filters, and the input columns of the definitions met. */
export async function activitiesExport(tx: Tx, caller: Caller, query: ExportQuery): Promise<ExportPlan> {
  const ctx = await exportContext(tx, caller, query);
  const inputs = await inputColumns(tx, ctx);
  const datasets = await datasetNames(tx, ctx.organizationId);
  return {
    name: `activities-${ctx.year}`,
    columns: activityColumns(inputs.columns),
    write: (engine, run, signal, writer) =>
      readPages(engine, run, activitiesQuery(ctx), signal, (rows) =>
        writer.rows(rows.map((r) => activityCells(r, ctx, inputs.names, datasets))),
      ),
  };
}

/** GET /exports/history: the changes of values, then those of activities, each in order. */
export async function historyExport(tx: Tx, caller: Caller, query: ExportQuery): Promise<ExportPlan> {
  const ctx = await exportContext(tx, caller, { ...query, key: undefined, statuses: undefined });
  return {
    name: `history-${ctx.year}`,
    columns: HISTORY_COLUMNS,
    async write(engine, run, signal, writer) {
      for (const kind of ['value', 'activity'] as const) {
        await readPages(engine, run, historyQuery(ctx, kind), signal, (rows) =>
          writer.rows(rows.map((r) => changeCells(r, ctx, kind))),
        );
      }
    },
  };
}
