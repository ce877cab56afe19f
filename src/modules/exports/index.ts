/** The exports module's front door: what other modules (and the composition root) may use. */

export { loadVerifyKey, verifyAuditPack } from './audit-pack.verify.ts';
export { type ExportRefusal, exportGateStats, exportsRunning } from './exports.gate.ts';
export { tableExportTask } from './exports.offload.ts';
export { exportsRoutes } from './exports.routes.ts';
export type { TableExportInput } from './exports.worker-task.ts';
