/**
 * The heavy-work pool's worker thread (src/lib/heavy/pool.ts): the tasks it serves, by name.
 * A task is `(input, emit, feed) => result` (see src/lib/heavy/protocol.ts); add one here to run it
 * off the request loop with `heavy.run({ organizationId, task: '<name>', input, bytes })`.
 * Bundled as dist/heavy-worker-entry.mjs (scripts/build.mjs); from source, heavy-worker-entry.mjs
 * registers the TypeScript loader first.
 */
import { jsonBodyTask } from './http/heavy-body.ts';
import { serveHeavyTasks } from './lib/heavy/serve.ts';
import { tableEncodeTask } from './lib/tabular/task.ts';
import { tableExportTask } from './modules/exports/index.ts';
import { sourceImportTask } from './modules/source-imports/index.ts';
import { servicePipeline } from './values-pipeline.ts';

serveHeavyTasks({
  'json-body': jsonBodyTask,
  'table-encode': tableEncodeTask,
  'table-export': tableExportTask,
  // A large import on PostgreSQL, on the worker's own connection (decision 0233).
  'source-import': sourceImportTask((budgetMs) => servicePipeline(budgetMs)),
});
