// The import screen's Web Worker: reads the chosen file off the page's thread (see
// workbook-reader.js) and answers { sheets } or { error } (a message meant for people).
import { ReadError, readWorkbookFile } from './workbook-reader.js';

self.onmessage = async (event) => {
  const { file, csvSheetName, sheetNames } = event.data;
  try {
    self.postMessage({ sheets: await readWorkbookFile(file, { csvSheetName, sheetNames }) });
  } catch (error) {
    if (!(error instanceof ReadError)) console.warn('sheets worker:', error);
    self.postMessage({
      error:
        error instanceof ReadError
          ? error.message
          : 'The file could not be read. Open it in your spreadsheet program, save it again and choose it again.',
    });
  }
};
