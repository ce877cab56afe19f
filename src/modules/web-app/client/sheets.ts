// Reads the chosen file for the import screen without freezing the page: the file's size is checked
// here, before anything is read, then a Web Worker (sheets-worker.js, its own content-hashed file)
// reads it. Answers the `sheets` of POST /source-imports, or throws a ReadError (a message key and
// its values, said in the person's language by the import screen). A reading that takes longer than READ_TIMEOUT_MS, or is cancelled, stops the worker.
import { MAX_FILE_BYTES, READ_TIMEOUT_MS, ReadError, tooLarge } from './sheet-limits.js';
import type { Sheets } from './workbook-reader.js';

// The worker's address, set by the build (scripts/build-web-app.mjs) to its content-hashed name.
declare const SDCS_SHEETS_WORKER: string | undefined;
const WORKER_URL = typeof SDCS_SHEETS_WORKER === 'string' ? SDCS_SHEETS_WORKER : null;

/** The same checks as the worker's, for a file chosen before anything is read. */
export function fileProblem(file: File): ReadError | null {
  if (!/\.(xlsx|csv)$/i.test(file.name)) return new ReadError('sheets.wrongType');
  if (file.size > MAX_FILE_BYTES) return tooLarge(file.size);
  return null;
}

/** Reads in this thread: only where module workers are missing (older browsers). */
type Options = { csvSheetName?: string; sheetNames?: string[] | null; signal?: AbortSignal };

async function readHere(file: File, options: Options): Promise<Sheets> {
  const { readWorkbookFile } = await import('./workbook-reader.js');
  try {
    return await readWorkbookFile(file, options);
  } catch (error) {
    if (error instanceof ReadError) throw error;
    throw new ReadError('sheets.unreadable');
  }
}

/**
 * The sheets of an .xlsx or .csv file (a CSV is the sheet `csvSheetName`; of a workbook, the sheets
 * in `sheetNames`, all when null). `signal` cancels the reading.
 */
export function readWorkbook(
  file: File,
  { csvSheetName, sheetNames = null, signal }: Options = {},
): Promise<Sheets> {
  const problem = fileProblem(file);
  if (problem) return Promise.reject(problem);
  if (!WORKER_URL) return readHere(file, { csvSheetName, sheetNames });
  return new Promise<Sheets>((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker(WORKER_URL, { type: 'module', name: 'sheets' });
    } catch {
      readHere(file, { csvSheetName, sheetNames }).then(resolve, reject);
      return;
    }
    const stop = (error: ReadError | null, sheets?: Sheets) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
      worker.terminate();
      if (error) reject(error);
      else resolve(sheets ?? []);
    };
    const cancel = () => stop(Object.assign(new ReadError('sheets.cancelled'), { cancelled: true }));
    const timer = setTimeout(
      () => stop(new ReadError('sheets.timeout', { minutes: Math.round(READ_TIMEOUT_MS / 60000) })),
      READ_TIMEOUT_MS,
    );
    signal?.addEventListener('abort', cancel);
    worker.onmessage = (event) =>
      event.data.error
        ? stop(new ReadError(event.data.error.key, event.data.error.values))
        : stop(null, event.data.sheets);
    worker.onerror = (event) => {
      event.preventDefault?.();
      stop(new ReadError('sheets.readerStopped'));
    };
    worker.postMessage({ file, csvSheetName, sheetNames });
  });
}
