// What the import screen reads, checked before a file is read (sizes) or sent (rows). The service
// takes at most 10,000 rows a sheet (POST /source-imports); the byte limits keep a tab responsive
// and its memory bounded: a 13 MB workbook that unpacked to 151 MB took 1.2 GB of memory to read.

/** The file as chosen (an .xlsx is a zip archive: this is its packed size). */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
/** The sum of the sizes an .xlsx declares for its parts, read from its zip directory. */
export const MAX_UNPACKED_BYTES = 100 * 1024 * 1024;
/** Rows a sheet may hold below its header row. */
export const MAX_ROWS = 10_000;
/** Reading is stopped after this long (a file that lies about its sizes is stopped here). */
export const READ_TIMEOUT_MS = 120_000;

/** Bytes in MB (of 1,048,576 bytes), rounded up to a tenth: a file just over a limit never reads as the limit. */
export const megabytes = (bytes: number) => Math.ceil(bytes / 104_857.6) / 10;

/**
 * A problem with the chosen file, said for the person who chose it: a message key of the app's
 * catalogs and its values (numbers stay numbers), so that the page formats it in the person's
 * language; the reading may run in a worker, which has no catalogs.
 */
export class ReadError extends Error {
  readonly key: string;
  readonly values: Record<string, string | number>;
  cancelled?: boolean;
  constructor(key: string, values: Record<string, string | number> = {}) {
    super(key);
    this.name = 'ReadError';
    this.key = key;
    this.values = values;
  }
}

/** The problem when the chosen file is larger than the import reads. */
export const tooLarge = (bytes: number) =>
  new ReadError('sheets.tooLarge', { size: megabytes(bytes), max: megabytes(MAX_FILE_BYTES) });
