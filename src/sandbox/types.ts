/** What `context` holds besides `coefficient`. */
export interface CalculationContext {
  year: number;
  periodUnit: number;
  site: { id: string; name: string; metadata: Record<string, unknown> };
}

export interface CalculationResult {
  value: number;
  metadata: Record<string, unknown>;
}

/** The parts of an activity definition a calculation needs. */
export interface CalcDefinition {
  calcCode: string;
  metadataSchema?: Record<string, unknown> | null;
}

/** A problem with calcCode found at save time, with its 1-based position in calcCode. */
export interface SyntaxProblem {
  message: string;
  line: number;
  column: number;
}
