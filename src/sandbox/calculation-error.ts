/** Why a calculation failed. */
export type CalculationErrorKind =
  /** calcCode does not compile, or is not the body of one function */
  | 'code'
  /** calcCode threw */
  | 'error'
  | 'timeout'
  | 'memory'
  | 'stack'
  /** the calculation awaits a promise that can never settle */
  | 'pending'
  /** the result is not a finite number or `{value, metadata?}` */
  | 'result'
  /** metadata is not an object, not serializable, or does not match metadataSchema */
  | 'metadata'
  /** the result is larger than the output limit */
  | 'output';

/**
 * A calculation that failed because of its code, its inputs or a limit: an expected outcome
 * (a 400 for one activity, a failed row in an import), never a crash of the service.
 */
export class CalculationError extends Error {
  constructor(
    readonly kind: CalculationErrorKind,
    message: string,
    /** 1-based line (and column) in calcCode, when known */
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
    this.name = 'CalculationError';
  }
}
