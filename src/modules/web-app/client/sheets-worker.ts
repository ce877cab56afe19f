// The import screen's Web Worker: reads the chosen file off the page's thread (see
// workbook-reader.js) and answers { sheets } or { error: { key, values } } (a message key of the
// app's catalogs: the page says it in the person's language).
import { ReadError, readWorkbookFile } from './workbook-reader.js';

declare const self: DedicatedWorkerGlobalScope;

/** What the page sends: the file and which sheets to read. */
type Request = { file: File; csvSheetName?: string; sheetNames?: string[] | null };

self.onmessage = async (event: MessageEvent<Request>) => {
  const { file, csvSheetName, sheetNames } = event.data;
  try {
    self.postMessage({ sheets: await readWorkbookFile(file, { csvSheetName, sheetNames }) });
  } catch (error) {
    if (!(error instanceof ReadError)) console.warn('sheets worker:', error);
    self.postMessage({
      error:
        error instanceof ReadError
          ? { key: error.key, values: error.values }
          : { key: 'sheets.unreadable', values: {} },
    });
  }
};
