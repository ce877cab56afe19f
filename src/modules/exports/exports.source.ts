import type { Engine, TenantRun } from '../../db/client.ts';
import { activitiesQuery, activityCells } from './activities.export.ts';
import type { ExportRow } from './exports.columns.ts';
import type { RowWriter } from './exports.formats.ts';
import { readPages } from './exports.reader.ts';
import type { ExportContext } from './exports.repository.ts';
import { changeCells, historyQuery } from './history.export.ts';
import { type ValueLookups, valueCells, valuesQuery } from './values.export.ts';

/**
 * What an export reads, as plain data (structured-cloneable: Maps, Dates, arrays): its checked
 * filters and the lookups read at its start. The same description is read on the request loop
 * (`writeSource` there) or by a heavy-work worker with a connection of its own (decision 0227),
 * so that the rows are parsed, turned into cells and encoded off the request loop.
 */
export type ExportSource =
  | { kind: 'values'; ctx: ExportContext; lookups: ValueLookups }
  | { kind: 'activities'; ctx: ExportContext; inputNames: string[]; datasets: Map<string, string> }
  | { kind: 'history'; ctx: ExportContext };

/** Reads every row of `source` a page at a time (see `readPages`), writing its cells to `writer`. */
export async function writeSource(
  source: ExportSource,
  engine: Engine,
  run: TenantRun,
  signal: AbortSignal,
  writer: RowWriter,
): Promise<void> {
  if (source.kind === 'values') {
    const { ctx, lookups } = source;
    await readPages(engine, run, valuesQuery(ctx, lookups), signal, (rows) => {
      const cells: ExportRow[] = [];
      for (const r of rows) {
        const row = valueCells(r, ctx, lookups);
        if (row) cells.push(row);
      }
      return writer.rows(cells);
    });
    return;
  }
  if (source.kind === 'activities') {
    const { ctx, inputNames, datasets } = source;
    await readPages(engine, run, activitiesQuery(ctx), signal, (rows) =>
      writer.rows(rows.map((r) => activityCells(r, ctx, inputNames, datasets))),
    );
    return;
  }
  const { ctx } = source;
  for (const kind of ['value', 'activity'] as const)
    await readPages(engine, run, historyQuery(ctx, kind), signal, (rows) =>
      writer.rows(rows.map((r) => changeCells(r, ctx, kind))),
    );
}
