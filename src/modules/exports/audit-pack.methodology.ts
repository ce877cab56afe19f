import { createHash } from 'node:crypto';
import type { PackDefinition } from './audit-pack.repository.ts';
import type { Column, ExportRow } from './exports.columns.ts';

const col = (name: string, type: Column['type'], description: string): Column => ({
  name,
  type,
  description,
});

export const DEFINITION_COLUMNS: Column[] = [
  col('definitionId', 'string', 'The activity definition'),
  col('key', 'string', 'Its key (activities.csv `definitionKey`)'),
  col('name', 'string', 'Its name'),
  col('description', 'string', 'What it calculates'),
  col('common', 'boolean', 'A common definition (shared by every organization)'),
  col('unit', 'string', 'The unit its calcCode returns'),
  col('inputs', 'string', 'Its inputs: `name (type, required)` joined by "; "'),
  col('calcCodeSha256', 'string', 'SHA-256 of its current calcCode'),
  col('methodologyFile', 'string', 'The file holding its current calcCode'),
  col('updatedAt', 'datetime', 'When the definition last changed'),
  col('activitiesExported', 'integer', 'How many activities of activities.csv it calculated'),
  col('codeVersionsUsed', 'string', 'The calcCode SHA-256s of those activities, "; "-joined'),
];

/** What the exported activities say about their code: per definition, activities per hash. */
export class CodeUse {
  /** definitionId → calcCodeSha256 (or '' when not recorded) → activities. */
  readonly byDefinition = new Map<string, Map<string, number>>();

  add(definitionId: string, sha256: string | null, activities = 1) {
    let hashes = this.byDefinition.get(definitionId);
    if (!hashes) {
      hashes = new Map();
      this.byDefinition.set(definitionId, hashes);
    }
    const key = sha256 ?? '';
    hashes.set(key, (hashes.get(key) ?? 0) + activities);
  }

  hashes(): string[] {
    return [...new Set([...this.byDefinition.values()].flatMap((m) => [...m.keys()]))].filter(Boolean);
  }
}

export interface MethodologyFile {
  path: string;
  code: string;
}

/** An activity hash whose code the service no longer has (changed before versions were kept). */
export interface UnretainedCode {
  definitionKey: string;
  calcCodeSha256: string;
  activities: number;
}

export interface Methodology {
  rows: ExportRow[];
  files: MethodologyFile[];
  notRetained: UnretainedCode[];
  /** Activities calculated before hashes were recorded (empty `calcCodeSha256`). */
  notRecorded: number;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const safe = (key: string) => key.replace(/[^\w.-]/g, '_');

/**
 * The definitions' rows and code files: each definition's current calcCode as
 * `methodology/<key>.js`, and each older version an exported activity was calculated with as
 * `methodology/<key>.<first 12 hex of its SHA-256>.js` when it is kept (0054). Each file's
 * SHA-256 is the `calcCodeSha256` of the activities it calculated (UTF-8, as stored).
 */
export function methodology(
  definitions: PackDefinition[],
  kept: { definition_id: string; sha256: string; calc_code: string }[],
  use: CodeUse,
): Methodology {
  const files: MethodologyFile[] = [];
  const rows: ExportRow[] = [];
  const notRetained: UnretainedCode[] = [];
  let notRecorded = 0;
  const taken = new Set<string>();
  for (const d of definitions) {
    let base = safe(d.key);
    if (taken.has(base)) base = `${base}~${d.id.slice(0, 8)}`;
    taken.add(base);
    const current = sha256(d.calc_code);
    const path = `methodology/${base}.js`;
    files.push({ path, code: d.calc_code });
    const hashes = use.byDefinition.get(d.id) ?? new Map<string, number>();
    let count = 0;
    for (const [hash, n] of hashes) {
      count += n;
      if (hash === '') {
        notRecorded += n;
        continue;
      }
      if (hash === current) continue;
      const old = kept.find((k) => k.definition_id === d.id && k.sha256 === hash);
      if (old && sha256(old.calc_code) === hash)
        files.push({ path: `methodology/${base}.${hash.slice(0, 12)}.js`, code: old.calc_code });
      else notRetained.push({ definitionKey: d.key, calcCodeSha256: hash, activities: n });
    }
    rows.push([
      d.id,
      d.key,
      d.name,
      d.description,
      d.is_common,
      d.unit,
      d.inputs.map((i) => `${i.name} (${i.type}${i.required ? ', required' : ''})`).join('; ') || null,
      current,
      path,
      d.updated_at,
      count,
      [...hashes.keys()].filter(Boolean).sort().join('; ') || null,
    ]);
  }
  return { rows, files, notRetained, notRecorded };
}
