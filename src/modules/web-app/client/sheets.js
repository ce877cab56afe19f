// Reads a workbook in the browser into the `sheets` of POST /source-imports: .xlsx with exceljs,
// .csv with papaparse (both bundled, loaded only when a file is read). The first row names the
// columns; each later row becomes an object of its cells (empty rows are kept, so row numbers
// stay those of the spreadsheet).

const MAX_ROWS = 10000;

function isoDate(date) {
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

/** A cell as JSON: rich text and hyperlinks as their text, formulas as their result, dates ISO. */
function cellValue(value) {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return isoDate(value);
  if (typeof value === 'object') {
    if ('result' in value) return cellValue(value.result);
    if (Array.isArray(value.richText)) return value.richText.map((r) => r.text).join('');
    if ('text' in value) return cellValue(value.text);
    if ('error' in value) return String(value.error);
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return value.slice(0, 16000);
  return value;
}

async function readXlsx(file) {
  const { default: ExcelJS } = await import('exceljs/dist/exceljs.bare.min.js');
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(await file.arrayBuffer());
  const sheets = [];
  workbook.eachSheet((worksheet) => {
    const header = worksheet.getRow(1);
    const columns = [];
    header.eachCell({ includeEmpty: false }, (cell, col) => {
      const name = cellValue(cell.value);
      if (name !== null && String(name).trim() !== '') columns.push([col, String(name).trim()]);
    });
    const rows = [];
    for (let r = 2; r <= Math.min(worksheet.rowCount, MAX_ROWS + 1); r++) {
      const row = worksheet.getRow(r);
      rows.push(Object.fromEntries(columns.map(([col, name]) => [name, cellValue(row.getCell(col).value)])));
    }
    // Rows left empty at the end of a sheet are formatting, not data.
    while (rows.length && Object.values(rows.at(-1)).every((v) => v === null || v === '')) rows.pop();
    if (columns.length) sheets.push({ name: worksheet.name.slice(0, 200), rows });
  });
  return sheets;
}

async function readCsv(file, sheetName) {
  const { default: Papa } = await import('papaparse');
  const text = await file.text();
  const parsed = Papa.parse(text, {
    header: true,
    skipEmptyLines: 'greedy',
    transformHeader: (h) => h.trim(),
  });
  const rows = parsed.data
    .slice(0, MAX_ROWS)
    .map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === '' || v === undefined ? null : v])),
    );
  return [{ name: sheetName, rows }];
}

/** The sheets of an .xlsx or .csv file (a CSV is one sheet, named `csvSheetName`). */
export function readWorkbook(file, csvSheetName) {
  if (/\.csv$/i.test(file.name)) return readCsv(file, csvSheetName);
  if (/\.xlsx$/i.test(file.name)) return readXlsx(file);
  throw new Error('Choose an .xlsx workbook or a .csv file.');
}
