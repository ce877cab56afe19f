// Reads the chosen file for the import screen without freezing the page: the file's size is checked
// here, before anything is read, then a Web Worker (sheets-worker.js, its own content-hashed file)
// reads it. Answers the `sheets` of POST /source-imports, or throws an Error whose message is meant
// for people. A reading that takes longer than READ_TIMEOUT_MS, or is cancelled, stops the worker.
import { MAX_FILE_BYTES, READ_TIMEOUT_MS, tooLargeMessage } from './sheet-limits.js';

// The worker's address, set by the build (scripts/build-web-app.mjs) to its content-hashed name.
const WORKER_URL = typeof SDCS_SHEETS_WORKER === 'string' ? SDCS_SHEETS_WORKER : null;

/** The same checks as the worker's, for a file chosen before anything is read. */
export function fileProblem(file) {
  if (!/\.(xlsx|csv)$/i.test(file.name)) return 'Choose an .xlsx workbook or a .csv file.';
  if (file.size > MAX_FILE_BYTES) return tooLargeMessage(file.size);
  return null;
}

/** Reads in this thread: only where module workers are missing (older browsers). */
async function readHere(file, options) {
  const { ReadError, readWorkbookFile } = await import('./workbook-reader.js');
  try {
    return await readWorkbookFile(file, options);
  } catch (error) {
    if (error instanceof ReadError) throw error;
    throw new Error(
      'The file could not be read. Open it in your spreadsheet program, save it again and choose it again.',
    );
  }
}

/**
 * The sheets of an .xlsx or .csv file (a CSV is the sheet `csvSheetName`; of a workbook, the sheets
 * in `sheetNames`, all when null). `signal` cancels the reading.
 */
export function readWorkbook(file, { csvSheetName, sheetNames = null, signal } = {}) {
  const problem = fileProblem(file);
  if (problem) return Promise.reject(new Error(problem));
  if (!WORKER_URL) return readHere(file, { csvSheetName, sheetNames });
  return new Promise((resolve, reject) => {
    let worker;
    try {
      worker = new Worker(WORKER_URL, { type: 'module', name: 'sheets' });
    } catch {
      readHere(file, { csvSheetName, sheetNames }).then(resolve, reject);
      return;
    }
    const stop = (error, sheets) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
      worker.terminate();
      if (error) reject(error);
      else resolve(sheets);
    };
    const cancel = () => stop(Object.assign(new Error('Reading was cancelled.'), { cancelled: true }));
    const timer = setTimeout(
      () =>
        stop(
          new Error(
            `Reading the file took longer than ${Math.round(READ_TIMEOUT_MS / 60000)} minutes and was stopped. Split it into smaller files.`,
          ),
        ),
      READ_TIMEOUT_MS,
    );
    signal?.addEventListener('abort', cancel);
    worker.onmessage = (event) =>
      event.data.error ? stop(new Error(event.data.error)) : stop(null, event.data.sheets);
    worker.onerror = (event) => {
      event.preventDefault?.();
      stop(
        new Error(
          'The file could not be read: the reader stopped (the file may be too large for this device). Split it into smaller files.',
        ),
      );
    };
    worker.postMessage({ file, csvSheetName, sheetNames });
  });
}
