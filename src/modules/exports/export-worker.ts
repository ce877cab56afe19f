/**
 * The export lane's worker thread (decision 0235; src/lib/heavy/lane.ts): CSV and NDJSON exports
 * read and encoded off the request loop, several at once. Its import graph is kept small (no
 * workbook, Parquet or HTTP code): the thread starts on the first export of a process, and what it
 * loads is part of that export's memory. Bundled as dist/export-worker-entry.mjs
 * (scripts/build.mjs); from source, src/export-worker-entry.mjs registers the TypeScript loader first.
 */
import { serveHeavyTasks } from '../../lib/heavy/serve.ts';
import { textEncoderOf } from './exports.text.ts';
import { exportTask } from './exports.worker-task.ts';

serveHeavyTasks({ 'table-export': exportTask(textEncoderOf) });
