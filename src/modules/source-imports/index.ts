/** The source-imports module's front door: what other modules (and the composition root) may use. */
export { adaptersRoutes } from './adapters.routes.ts';
export { sourceImportsRoutes } from './imports.routes.ts';
