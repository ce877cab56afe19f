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

const oneDecimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
/** Bytes in MB (of 1,048,576 bytes), rounded up to a tenth: a file just over a limit never reads as the limit. */
export const megabytes = (bytes) => `${oneDecimal.format(Math.ceil(bytes / 104_857.6) / 10)} MB`;

/** What a person reads when the chosen file is larger than the import reads. */
export const tooLargeMessage = (bytes) =>
  `The file is ${megabytes(bytes)}; the import reads files of at most ${megabytes(MAX_FILE_BYTES)}. ` +
  'Split it into several files (for example one per sheet or per quarter).';
