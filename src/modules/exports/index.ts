/** The exports module's front door: what other modules (and the composition root) may use. */

export { type ExportRefusal, exportGateStats } from './exports.gate.ts';
export { exportsRoutes } from './exports.routes.ts';
