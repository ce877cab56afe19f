// Types of the two spreadsheet readers as the import worker loads them (workbook-reader.ts):
// exceljs's browser bundle without polyfills (exceljs's own types describe it), and papaparse,
// which ships none: only the part the reader calls is declared.
declare module 'exceljs/dist/exceljs.bare.min.js' {
  import * as ExcelJS from 'exceljs';
  export default ExcelJS;
}

declare module 'papaparse' {
  interface ParseError {
    type: string;
    code: string;
    message: string;
    row?: number;
  }
  interface ParseResult {
    data: Record<string, string | undefined>[];
    errors: ParseError[];
    meta: { fields?: string[] };
  }
  interface ParseConfig {
    header: true;
    skipEmptyLines: boolean;
    transformHeader?: (header: string) => string;
  }
  const Papa: { parse(text: string, config: ParseConfig): ParseResult };
  export default Papa;
}
