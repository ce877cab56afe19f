/**
 * The calcCode sandbox: QuickJS compiled to WebAssembly, in a worker thread, with limits on CPU
 * time, memory, stack and output. User code never runs in the service's own JavaScript realm.
 */
export { CalculationError, type CalculationErrorKind } from './calculation-error.ts';
export { configureSandboxLimits, DEFAULT_LIMITS, resolveLimits, type SandboxLimits } from './limits.ts';
export { compileMetadataSchema, MetadataSchemaError, metadataSchemaProblem } from './metadata-schema.ts';
export {
  type CalcRunner,
  type CalcRunnerOptions,
  checkSyntax,
  createCalcRunner,
  withCalcRunner,
} from './runner.ts';
export type { Coefficient, CoefficientLookup, CoefficientOptions } from './session.ts';
export {
  configureSandboxWorkers,
  sandboxPool,
  sandboxStats,
  shutdownSandbox,
  warmSandbox,
} from './shared-pool.ts';
export type { CalcDefinition, CalculationContext, CalculationResult, SyntaxProblem } from './types.ts';
