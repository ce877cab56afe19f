/**
 * What the audit pack learns from its three streamed tables while they are written (decision
 * 0236): the evidence files the values cite, the calculation code each definition's activities
 * recorded, and history snapshots with unit symbols for unit ids. As data (`PackTableSpec`), so
 * that the export lane's worker can apply it where it writes the rows, and send back what it found.
 */
import { type ExportRow, HISTORY_COLUMNS } from './exports.columns.ts';

/** What to do with a table's rows as they are written (indexes of columns in its rows). */
export interface PackTableSpec {
  /** `evidenceFileIds` (values): the ids, `;`-separated, are collected. */
  evidence?: number;
  /** `definitionId` and `calcCodeSha256` (activities): the pairs met are counted. */
  code?: { definitionId: number; calcCodeSha256: number };
  /** History: each value snapshot's `selectedUnitId` becomes `selectedUnit`, the unit's symbol. */
  units?: Map<string, string>;
}

/** What a table's rows gave: evidence ids (unsorted) and [definitionId, sha256 or '', count]. */
export interface PackTableFound {
  evidence: string[];
  code: [string, string, number][];
}

const BEFORE = HISTORY_COLUMNS.findIndex((c) => c.name === 'before');
const AFTER = HISTORY_COLUMNS.findIndex((c) => c.name === 'after');
const RECORD_TYPE = HISTORY_COLUMNS.findIndex((c) => c.name === 'recordType');

/** History rows with unit symbols in their value snapshots (ids of unknown units kept). */
export function historyRowsWithUnits(symbol: Map<string, string>): (row: ExportRow) => ExportRow {
  const named = (snapshot: unknown) => {
    if (!snapshot || typeof snapshot !== 'object' || !('selectedUnitId' in snapshot)) return snapshot;
    const { selectedUnitId, ...rest } = snapshot as Record<string, unknown>;
    const unit = typeof selectedUnitId === 'string' ? (symbol.get(selectedUnitId) ?? selectedUnitId) : null;
    return { ...rest, selectedUnit: unit };
  };
  return (row) => {
    if (row[RECORD_TYPE] !== 'value') return row;
    const out = [...row];
    out[BEFORE] = named(row[BEFORE]);
    out[AFTER] = named(row[AFTER]);
    return out;
  };
}

/** Applies `spec` to pages of rows (`map`), then says what they held (`found`). */
export function packTableRows(spec: PackTableSpec) {
  const evidence = new Set<string>();
  const code = new Map<string, Map<string, number>>();
  const units = spec.units ? historyRowsWithUnits(spec.units) : undefined;
  return {
    map(rows: ExportRow[]): ExportRow[] {
      for (const row of rows) {
        if (spec.evidence !== undefined) {
          const ids = row[spec.evidence];
          if (typeof ids === 'string') for (const id of ids.split(';')) evidence.add(id);
        }
        if (spec.code) {
          const definitionId = row[spec.code.definitionId] as string;
          const sha = (row[spec.code.calcCodeSha256] as string) || '';
          const hashes = code.get(definitionId) ?? new Map<string, number>();
          code.set(definitionId, hashes);
          hashes.set(sha, (hashes.get(sha) ?? 0) + 1);
        }
      }
      return units ? rows.map(units) : rows;
    },
    found(): PackTableFound {
      return {
        evidence: [...evidence],
        code: [...code].flatMap(([id, hashes]) =>
          [...hashes].map(([sha, n]) => [id, sha, n] as [string, string, number]),
        ),
      };
    },
  };
}
