import { createHash } from 'node:crypto';
import { type Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import {
  DATASET_COLUMNS,
  FORM_COLUMNS,
  INDICATOR_COLUMNS,
  LOCK_COLUMNS,
  type PackHeader,
  UNIT_COLUMNS,
} from './audit-pack.data.ts';
import { CodeUse, DEFINITION_COLUMNS, type Methodology } from './audit-pack.methodology.ts';
import { packReadme } from './audit-pack.readme.ts';
import type { PackSigner } from './audit-pack.signing.ts';
import type { PackTableFound } from './audit-pack.tables.ts';
import type { Column, ExportRow } from './exports.columns.ts';
import { createWriter, ExportCancelled, type RowWriter } from './exports.formats.ts';

/** A file of the pack as the manifest lists it. */
export interface PackedFile {
  path: string;
  /** Data rows (CSV tables, without the header) or lines (SHA256SUMS); null for other files. */
  rows: number | null;
  bytes: number;
  sha256: string;
}

/**
 * A table streamed from the database: its columns and how to read its rows into a writer; or, when
 * a worker makes its CSV (`encoded`, decision 0236), how to have its bytes written to `out`,
 * answering its row count and what its rows held (see audit-pack.tables.ts).
 */
export interface StreamedTable {
  columns: Column[];
  write(writer: RowWriter): Promise<void>;
  encoded?: (out: Writable) => Promise<{ rows: number; found?: PackTableFound }>;
}

/** An evidence file: its bytes, or why storage cannot give them. */
export interface EvidenceFile {
  mediaId: string;
  fileName: string;
  open(): Promise<Readable | { missing: string }>;
}

/** Everything a pack is made of: read at its start, or read while it is written. */
export interface PackInput {
  header: PackHeader;
  values: StreamedTable;
  activities: StreamedTable;
  history: StreamedTable;
  /** Index of `evidenceFileIds` in values' rows; of `definitionId`, `calcCodeSha256` in activities'. */
  cells: { evidence: number; definitionId: number; calcCodeSha256: number };
  forms(definitionKeys: Map<string, string>): ExportRow[];
  units: ExportRow[];
  datasets: ExportRow[];
  indicators: ExportRow[];
  locks: ExportRow[];
  /** The definitions (rows and code files) for the activities written, once they are. */
  methodology(use: CodeUse): Promise<Methodology & { keys: Map<string, string> }>;
  evidence(mediaIds: string[]): Promise<EvidenceFile[]>;
  signer: PackSigner;
}

/** A pass-through that counts and hashes what goes through it (one zip entry). */
function hashing() {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  return { stream, done: () => ({ bytes, sha256: hash.digest('hex') }) };
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Writes an audit pack as a zip (yazl), streamed as it is made: the tables, the methodology, the
 * evidence, README.txt, SHA256SUMS, then `manifest.json` and its Ed25519 signature
 * `manifest.sig`. Every entry carries the pack's creation time, so the same data at the same
 * time gives the same bytes. Nothing here knows HTTP: `done` settles when everything was read.
 */
export function assembleAuditPack(
  input: PackInput,
  signal: AbortSignal,
): { stream: Readable; done: Promise<void> } {
  const zip = new ZipFile();
  const files: PackedFile[] = [];
  const missing: { mediaId: string; fileName: string; reason: string }[] = [];
  const mtime = new Date(Math.floor(input.header.createdAt.getTime() / 1000) * 1000);
  let current: Transform | undefined;
  signal.addEventListener('abort', () => current?.destroy(), { once: true });

  const entry = async (path: string, fill: (out: Writable) => Promise<number | null>) => {
    if (signal.aborted) throw new ExportCancelled();
    const { stream, done } = hashing();
    current = stream;
    zip.addReadStream(stream, path, { mtime });
    const rows = await fill(stream);
    stream.end();
    files.push({ path, rows, ...done() });
  };
  const buffer = (path: string, data: Buffer, rows: number | null) => {
    zip.addBuffer(data, path, { mtime });
    files.push({ path, rows, bytes: data.length, sha256: sha256(data) });
  };
  const table = (path: string, columns: Column[], write: (writer: RowWriter) => Promise<void>) =>
    entry(path, async (out) => {
      const writer = createWriter('csv', out);
      let count = 0;
      await writer.start(columns);
      await write({
        ...writer,
        rows: (rows) => {
          count += rows.length;
          return writer.rows(rows);
        },
      });
      await writer.end();
      return count;
    });
  const streamed = (
    path: string,
    source: StreamedTable,
    map: (rows: ExportRow[]) => ExportRow[],
    found: (f: PackTableFound) => void = () => undefined,
  ) => {
    const { encoded } = source;
    if (encoded)
      return entry(path, async (out) => {
        const made = await encoded(out);
        if (made.found) found(made.found);
        return made.rows;
      });
    return table(path, source.columns, (writer) =>
      source.write({ ...writer, rows: (rows) => writer.rows(map(rows)) }),
    );
  };

  const produce = async () => {
    const { cells } = input;
    const evidence = new Set<string>();
    await streamed(
      'values.csv',
      input.values,
      (rows) => {
        for (const row of rows) {
          const ids = row[cells.evidence];
          if (typeof ids === 'string') for (const id of ids.split(';')) evidence.add(id);
        }
        return rows;
      },
      (found) => {
        for (const id of found.evidence) evidence.add(id);
      },
    );
    const use = new CodeUse();
    await streamed(
      'activities.csv',
      input.activities,
      (rows) => {
        for (const row of rows)
          use.add(row[cells.definitionId] as string, (row[cells.calcCodeSha256] as string) || null);
        return rows;
      },
      (found) => {
        for (const [definitionId, sha, n] of found.code) use.add(definitionId, sha || null, n);
      },
    );
    await streamed('history.csv', input.history, (rows) => rows);
    const method = await input.methodology(use);
    await table('forms.csv', FORM_COLUMNS, (w) => w.rows(input.forms(method.keys)));
    await table('activity-definitions.csv', DEFINITION_COLUMNS, (w) => w.rows(method.rows));
    for (const f of method.files) buffer(f.path, Buffer.from(f.code, 'utf8'), null);
    await table('units.csv', UNIT_COLUMNS, (w) => w.rows(input.units));
    await table('datasets.csv', DATASET_COLUMNS, (w) => w.rows(input.datasets));
    await table('indicators.csv', INDICATOR_COLUMNS, (w) => w.rows(input.indicators));
    await table('locks.csv', LOCK_COLUMNS, (w) => w.rows(input.locks));
    for (const file of await input.evidence([...evidence].sort())) {
      const opened = await file.open();
      if ('missing' in opened) {
        missing.push({ mediaId: file.mediaId, fileName: file.fileName, reason: opened.missing });
        continue;
      }
      await entry(`evidence/${file.mediaId}/${file.fileName.replace(/[/\\]/g, '_')}`, async (out) => {
        await pipeline(opened, out, { end: false });
        return null;
      });
    }
    const notes = {
      missingEvidence: missing,
      codeVersionsNotRetained: method.notRetained,
      activitiesWithoutRecordedCode: method.notRecorded,
    };
    buffer('README.txt', Buffer.from(packReadme(input.header, notes), 'utf8'), null);
    const sums = files.map((f) => `${f.sha256}  ${f.path}\n`).join('');
    buffer('SHA256SUMS', Buffer.from(sums, 'utf8'), files.length);
    const h = input.header;
    const manifest = {
      format: 'sdcs-audit-pack/2',
      software: h.software,
      organization: h.organization,
      generatedBy: h.generatedBy,
      createdAt: h.createdAt.toISOString(),
      year: h.year,
      filters: h.filters,
      siteScope: h.siteScope,
      signature: { algorithm: 'Ed25519', keyId: input.signer.keyId, file: 'manifest.sig' },
      files,
      ...notes,
    };
    const bytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
    zip.addBuffer(bytes, 'manifest.json', { mtime });
    zip.addBuffer(input.signer.sign(bytes), 'manifest.sig', { mtime });
    zip.end();
  };
  const stream = zip.outputStream as unknown as Readable;
  const done = produce().catch((error: unknown) => {
    current?.destroy();
    stream.destroy();
    throw error;
  });
  return { stream, done };
}
