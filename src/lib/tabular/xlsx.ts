import { PassThrough } from 'node:stream';
import { ZipFile } from 'yazl';
import { cellText, instantOf, type RowEncoder } from './cells.ts';
import type { Column, ExportCell, ExportRow } from './columns.ts';

/**
 * XLSX written directly as SpreadsheetML into a streaming zip (yazl): a workbook of one sheet
 * whose XML is produced a page of rows at a time and deflated as it goes. Nothing of the sheet is
 * kept: what a page gives back is what the compressor let out, so memory is a page of rows plus
 * the deflate window whatever the size (exceljs's streaming writer buffered ahead of compression:
 * +1 GB for a million rows, issue 43).
 *
 * Cells: numbers are number cells, booleans boolean cells, `Date`s date cells (an Excel serial
 * number in UTC with the `yyyy-mm-dd hh:mm:ss` format), everything else inline text (never a
 * formula). Text keeps leading and trailing white space (`xml:space="preserve"`), LF, and CR (as
 * `&#13;`, which every XML reader hands back as CR); control characters XML cannot carry are
 * written `_xHHHH_` and a literal `_xHHHH_` as `_x005F_xHHHH_` (the Office escapes).
 */

/** Excel's day 0 (1899-12-30) in Unix milliseconds, and a day's length. */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const DAY_MS = 86_400_000;
/** The style index of date cells in `STYLES` (0 is the default). */
const DATE_STYLE = 1;

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';

const CONTENT_TYPES = `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;
const ROOT_RELS = `${XML_HEAD}<Relationships xmlns="${PKG_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const WORKBOOK_RELS = `${XML_HEAD}<Relationships xmlns="${PKG_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL_NS}/styles" Target="styles.xml"/></Relationships>`;
const STYLES = `${XML_HEAD}<styleSheet xmlns="${MAIN_NS}"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss"/></numFmts><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;
/** The header row's style (bold). */
const HEAD_STYLE = 2;

const workbookXml = (sheetName: string) =>
  `${XML_HEAD}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheets><sheet name="${escapeXml(sheetName)}" sheetId="1" r:id="rId1"/></sheets></workbook>`;

/** A sheet name Excel accepts: at most 31 characters, none of `[]:*?/\`. */
export function sheetNameOf(name: string): string {
  return name.replace(/[[\]:*?/\\]/g, '-').slice(0, 31) || 'export';
}

/** Excel column letters of a 0-based index: 0 -> A, 25 -> Z, 26 -> AA. */
export function columnLetters(index: number): string {
  let n = index + 1;
  let letters = '';
  while (n > 0) {
    const rest = (n - 1) % 26;
    letters = String.fromCharCode(65 + rest) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

/** The Excel serial number of an instant (days since 1899-12-30, UTC). */
export function excelSerial(date: Date): number {
  return (date.getTime() - EXCEL_EPOCH_MS) / DAY_MS;
}

const XML_SPECIAL = /[&<>"]/g;
const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escapeXml = (text: string) => text.replace(XML_SPECIAL, (c) => XML_ENTITIES[c]!);

/**
 * Text as the content of `<t>`: XML-escaped; CR as `&#13;` (a raw CR is read back as LF);
 * characters XML 1.0 cannot hold (other C0 controls, U+FFFE/U+FFFF, lone surrogates) as `_xHHHH_`;
 * and a literal `_xHHHH_` protected as `_x005F_xHHHH_` so that readers do not unescape it.
 */
/** C0 controls XML 1.0 cannot hold (all but tab, LF and CR), and the two non-characters. */
const CONTROLS = '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF';
const NEEDS_ESCAPE = new RegExp(`[&<>"\\r${CONTROLS}\\uD800-\\uDFFF]|_x[0-9A-Fa-f]{4}_`);
const ESCAPES = new RegExp(
  `[&<>"]|\\r|[${CONTROLS}]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]|[\\uD800-\\uDFFF]|_(?=x[0-9A-Fa-f]{4}_)`,
  'g',
);
const hex4 = (code: number) => code.toString(16).toUpperCase().padStart(4, '0');

export function sheetText(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(ESCAPES, (c) => {
    if (c.length === 2) return c; // a surrogate pair: a real character
    if (c === '\r') return '&#13;';
    if (c === '_') return '_x005F_';
    const entity = XML_ENTITIES[c];
    return entity ?? `_x${hex4(c.charCodeAt(0))}_`;
  });
}

/** White space that XML would drop without `xml:space="preserve"`: leading, trailing, or breaks. */
const KEEP_SPACE = /^\s|\s$|[\n\r\t]/;

function textCell(ref: string, text: string, style = ''): string {
  const space = KEEP_SPACE.test(text) ? ' xml:space="preserve"' : '';
  return `<c r="${ref}"${style} t="inlineStr"><is><t${space}>${sheetText(text)}</t></is></c>`;
}

/** One cell's XML, or '' for an empty cell. */
export function cellXml(ref: string, cell: ExportCell): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'number')
    return Number.isFinite(cell) ? `<c r="${ref}"><v>${cell}</v></c>` : textCell(ref, String(cell));
  if (typeof cell === 'boolean') return `<c r="${ref}" t="b"><v>${cell ? 1 : 0}</v></c>`;
  if (cell instanceof Date)
    return Number.isNaN(cell.getTime())
      ? ''
      : `<c r="${ref}" s="${DATE_STYLE}"><v>${excelSerial(cell)}</v></c>`;
  const text = cellText(cell);
  return text === '' ? '' : textCell(ref, text);
}

export interface XlsxOptions {
  sheetName: string;
  /** The zip entries' modification time (the export's start). */
  modified: Date;
  /** zlib level of the sheet: 1 is about three times faster than 6 and some 15% larger. */
  level?: number;
}

/** Column widths (in characters): dates need some 19 to show, not `####`. */
function colsXml(columns: readonly Column[]): string {
  const widths = columns.map((c) =>
    c.type === 'datetime' ? 20 : Math.min(40, Math.max(10, c.name.length + 2)),
  );
  return `<cols>${widths.map((w, i) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"/>`).join('')}</cols>`;
}

export function xlsxEncoder(options: XlsxOptions): RowEncoder {
  const zip = new ZipFile();
  const sheet = new PassThrough({ highWaterMark: 64 * 1024 });
  const out: Buffer[] = [];
  let failure: Error | null = null;
  const ended = new Promise<void>((resolve, reject) => {
    zip.outputStream.on('data', (chunk: Buffer) => out.push(chunk));
    zip.outputStream.once('end', resolve);
    zip.outputStream.once('error', reject);
    sheet.once('error', reject);
  });
  ended.catch((error: Error) => {
    failure = error;
  });
  const entry = { mtime: options.modified, compress: true };
  zip.addBuffer(Buffer.from(CONTENT_TYPES), '[Content_Types].xml', entry);
  zip.addBuffer(Buffer.from(ROOT_RELS), '_rels/.rels', entry);
  zip.addBuffer(Buffer.from(workbookXml(sheetNameOf(options.sheetName))), 'xl/workbook.xml', entry);
  zip.addBuffer(Buffer.from(WORKBOOK_RELS), 'xl/_rels/workbook.xml.rels', entry);
  zip.addBuffer(Buffer.from(STYLES), 'xl/styles.xml', entry);
  zip.addReadStream(sheet, 'xl/worksheets/sheet1.xml', {
    mtime: options.modified,
    compressionLevel: options.level ?? 1,
  });
  zip.end();

  let letters: string[] = [];
  /** Which columns hold times (their ISO text becomes a date cell). */
  let times: boolean[] = [];
  let rowNumber = 0;
  const take = () => out.splice(0, out.length);
  /** Writes XML into the sheet entry and waits while the compressor is behind. */
  const write = async (xml: string) => {
    if (failure) throw failure;
    if (!sheet.write(xml)) await new Promise<void>((resolve) => sheet.once('drain', resolve));
    if (failure) throw failure;
  };
  return {
    async start(columns) {
      letters = columns.map((_, i) => columnLetters(i));
      times = columns.map((c) => c.type === 'datetime');
      rowNumber = 1;
      let head = `${XML_HEAD}<worksheet xmlns="${MAIN_NS}"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>${colsXml(columns)}<sheetData><row r="1">`;
      for (let i = 0; i < columns.length; i++)
        head += textCell(`${letters[i]}1`, columns[i]!.name, ` s="${HEAD_STYLE}"`);
      await write(`${head}</row>`);
      return take();
    },
    async page(rows: readonly ExportRow[]) {
      let xml = '';
      for (const row of rows) {
        rowNumber++;
        xml += `<row r="${rowNumber}">`;
        for (let i = 0; i < row.length; i++) {
          const cell = times[i] && typeof row[i] === 'string' ? (instantOf(row[i]) ?? row[i]) : row[i];
          xml += cellXml(`${letters[i]}${rowNumber}`, cell);
        }
        xml += '</row>';
      }
      if (xml !== '') await write(xml);
      return take();
    },
    async end() {
      sheet.end('</sheetData></worksheet>');
      await ended;
      return take();
    },
  };
}
