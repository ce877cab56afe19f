/** The source-imports module's front door: what other modules (and the composition root) may use. */
export { adaptersRoutes } from './adapters.routes.ts';
export { sourceImportsRoutes } from './imports.routes.ts';
export type { ImportsOffLoop } from './imports.offload.ts';
export { sourceImportTask } from './imports.worker-task.ts';
export { acceptedImportsJob } from './imports.jobs.ts';
