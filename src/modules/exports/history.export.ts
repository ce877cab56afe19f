import type { ExportRow } from './exports.columns.ts';
import { periodText } from './exports.filters.ts';
import type { OrderedQuery } from './exports.reader.ts';
import type { ExportContext } from './exports.repository.ts';
import { type ChangeRecord, changeHistoryStatement } from './exports.repository.ts';

/**
 * The changes of values, or of activities, of the year, in the order they were made (`seq`).
 * History is only ever appended: reading changes made up to the export's start (`at <= asOf`)
 * gives the same rows on both engines, however long the export takes.
 */
export function historyQuery(
  ctx: ExportContext,
  kind: 'value' | 'activity',
): OrderedQuery<ChangeRecord, number> {
  return {
    keyOf: (row) => Number(row.seq),
    statement: (after, limit) => changeHistoryStatement(ctx, kind, after, limit),
  };
}

export function changeCells(r: ChangeRecord, ctx: ExportContext, kind: 'value' | 'activity'): ExportRow {
  const site = ctx.sites.get(r.site_id);
  return [
    r.id,
    kind,
    r.record_id,
    r.action,
    r.at,
    r.user_name,
    r.user_email,
    r.comment,
    r.before,
    r.after,
    r.site_id,
    site?.code ?? null,
    site?.name ?? null,
    site?.path ?? null,
    r.form_id,
    r.element_key,
    r.year,
    r.period_unit,
    periodText(r.year, r.period_type, r.period_unit),
  ];
}
