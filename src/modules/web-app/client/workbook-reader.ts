// Reads a workbook into the `sheets` of POST /source-imports. It runs in the import screen's Web
// Worker (sheets-worker.js), so a large file never freezes the page. Sizes are checked before
// anything is unpacked: the file's own size, then, for an .xlsx, the sizes its zip directory
// declares (read from the end of the file, nothing inflated). The first row names the columns;
// each later row becomes an object of its cells; empty rows are kept (the service skips them), so
// that row N of the sheet is always rows[N - 2]. Problems come back as ReadError: a message key
// and its values, which the import screen says in the person's language.
import {
  MAX_FILE_BYTES,
  MAX_ROWS,
  MAX_UNPACKED_BYTES,
  megabytes,
  ReadError,
  tooLarge,
} from './sheet-limits.js';

export { ReadError };

/** A cell as JSON. */
export type Cell = string | number | boolean | null;
/** A sheet of POST /source-imports: its name and its rows (column name to cell). */
export type Sheet = { name: string; rows: Record<string, Cell>[] };
export type Sheets = Sheet[];

const DAMAGED = 'sheets.damaged';

const tooManyRows = (sheet: string, rows: number) =>
  new ReadError('sheets.tooManyRows', { sheet, rows, max: MAX_ROWS });

/** Refuses a file before reading it when it is larger than the import reads. */
export function checkFileSize(file: File) {
  if (file.size > MAX_FILE_BYTES) throw tooLarge(file.size);
}

function isoDate(date: Date) {
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

/** A cell as JSON: rich text and hyperlinks as their text, formulas as their result, dates ISO. */
function cellValue(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : isoDate(value);
  if (typeof value === 'object') {
    if ('result' in value) return cellValue(value.result);
    if ('richText' in value && Array.isArray(value.richText))
      return value.richText.map((r: { text: string }) => r.text).join('');
    if ('text' in value) return cellValue(value.text);
    if ('error' in value) return String(value.error);
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return value.slice(0, 16000);
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  return value as Cell;
}

const isEmptyRow = (row: Record<string, Cell>) => Object.values(row).every((v) => v === null || v === '');

/** Drops the empty rows at the end of a sheet (formatting, not data). */
function trimEnd(rows: Record<string, Cell>[]) {
  while (rows.length && isEmptyRow(rows.at(-1) ?? {})) rows.pop();
  return rows;
}

const wanted = (sheetNames: string[] | null | undefined, name: string) =>
  !sheetNames || sheetNames.includes(name);

/**
 * The sizes an .xlsx declares, from its zip directory at the end of the file: refuses what is not a
 * zip archive, an archive without a workbook, a cut-off file, and more than MAX_UNPACKED_BYTES.
 */
async function checkXlsx(file: File) {
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  if (head[0] === 0xd0 && head[1] === 0xcf && head[2] === 0x11 && head[3] === 0xe0) {
    throw new ReadError('sheets.passwordOrXls');
  }
  if (head[0] !== 0x50 || head[1] !== 0x4b) {
    throw new ReadError('sheets.notXlsx');
  }
  const { BlobReader, ZipReader } = await import('@zip.js/zip.js');
  const reader = new ZipReader(new BlobReader(file), { useWebWorkers: false });
  let entries: Awaited<ReturnType<InstanceType<typeof ZipReader>['getEntries']>>;
  try {
    entries = await reader.getEntries();
  } catch {
    throw new ReadError(DAMAGED);
  } finally {
    await reader.close().catch(() => undefined);
  }
  if (entries.some((e) => e.encrypted)) {
    throw new ReadError('sheets.password');
  }
  if (!entries.some((e) => e.filename === 'xl/workbook.xml')) {
    throw new ReadError('sheets.zipNotWorkbook');
  }
  const unpacked = entries.reduce((sum, e) => sum + (e.uncompressedSize ?? 0), 0);
  if (unpacked > MAX_UNPACKED_BYTES) {
    throw new ReadError('sheets.unpacksTo', {
      size: megabytes(unpacked),
      max: megabytes(MAX_UNPACKED_BYTES),
    });
  }
}

async function readXlsx(file: File, sheetNames: string[] | null | undefined): Promise<Sheets> {
  await checkXlsx(file);
  const { default: ExcelJS } = await import('exceljs/dist/exceljs.bare.min.js');
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(await file.arrayBuffer());
  } catch {
    // exceljs and its zip reader say what failed inside them ("Cannot set properties of
    // undefined", "Corrupted zip"), which tells the person nothing they can act on.
    throw new ReadError(DAMAGED);
  }
  const sheets: Sheets = [];
  for (const worksheet of workbook.worksheets) {
    if (!wanted(sheetNames, worksheet.name)) continue;
    const columns: [number, string][] = [];
    worksheet.getRow(1).eachCell({ includeEmpty: false }, (cell, col) => {
      const name = cellValue(cell.value);
      if (name !== null && String(name).trim() !== '') columns.push([col, String(name).trim()]);
    });
    if (!columns.length) continue;
    // The last row that holds a value (a sheet's dimension may count formatted, empty rows).
    let last = 1;
    worksheet.eachRow({ includeEmpty: false }, (row, number) => {
      if (columns.some(([col]) => cellValue(row.getCell(col).value) !== null)) last = number;
    });
    if (last - 1 > MAX_ROWS) throw tooManyRows(worksheet.name, last - 1);
    const rows: Record<string, Cell>[] = [];
    for (let r = 2; r <= last; r++) {
      const row = worksheet.getRow(r);
      rows.push(Object.fromEntries(columns.map(([col, name]) => [name, cellValue(row.getCell(col).value)])));
    }
    sheets.push({ name: worksheet.name.slice(0, 200), rows: trimEnd(rows) });
  }
  return sheets;
}

async function readCsv(file: File, sheetName: string): Promise<Sheets> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    // Read another way, "Müller" would silently become "M�ller" and match no site.
    throw new ReadError('sheets.notUtf8');
  }
  const { default: Papa } = await import('papaparse');
  const parsed = Papa.parse(text, {
    header: true,
    // Empty lines stay rows, so that rows[i] is line i + 2 of the file as a spreadsheet shows it.
    skipEmptyLines: false,
    transformHeader: (h) => h.trim(),
  });
  const broken = parsed.errors.find((e) => e.type === 'Quotes');
  if (broken) {
    throw new ReadError('sheets.openQuote', { row: (broken.row ?? 0) + 2 });
  }
  if (!parsed.meta.fields?.some((f) => f !== '')) throw new ReadError('sheets.noHeader');
  const rows = trimEnd(
    parsed.data.map((row) =>
      Object.fromEntries(
        Object.entries(row)
          .filter(([k]) => k !== '' && k !== '__parsed_extra')
          .map(([k, v]) => [k, v === '' || v === undefined ? null : v] as const),
      ),
    ),
  );
  if (rows.length > MAX_ROWS) throw tooManyRows(sheetName, rows.length);
  return [{ name: sheetName, rows }];
}

/**
 * The sheets of an .xlsx or .csv file: a CSV is one sheet, named `csvSheetName`; of a workbook,
 * only the sheets named in `sheetNames` (all when null).
 */
export async function readWorkbookFile(
  file: File,
  { csvSheetName = 'Sheet1', sheetNames = null }: { csvSheetName?: string; sheetNames?: string[] | null },
): Promise<Sheets> {
  checkFileSize(file);
  if (/\.csv$/i.test(file.name)) return readCsv(file, csvSheetName);
  if (/\.xlsx$/i.test(file.name)) return readXlsx(file, sheetNames);
  throw new ReadError('sheets.wrongType');
}
