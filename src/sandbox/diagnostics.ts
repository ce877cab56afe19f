import { CalculationError } from './calculation-error.ts';
import { CALC_FILE, FIRST_LINE_SHIFT } from './harness.ts';
import type { SandboxLimits } from './limits.ts';

/** An error as it leaves QuickJS (`context.dump` of an Error, or the harness's description). */
export interface GuestError {
  name?: unknown;
  message?: unknown;
  stack?: unknown;
}

export interface SourcePosition {
  line: number;
  column: number;
}

const MAX_MESSAGE = 500;
const FRAME = new RegExp(`\\b${CALC_FILE}:(\\d+):(\\d+)`);

/** The first position in calcCode named by a QuickJS stack trace. */
export function locate(stack: unknown): SourcePosition | undefined {
  if (typeof stack !== 'string') return undefined;
  const match = FRAME.exec(stack);
  if (!match) return undefined;
  const line = Number(match[1]);
  const column = Number(match[2]);
  return { line, column: line === 1 ? Math.max(1, column - FIRST_LINE_SHIFT) : column };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function clip(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
}

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

export const limitErrors = {
  timeout: (limits: SandboxLimits) =>
    new CalculationError('timeout', `Calculation timed out after ${limits.cpuTimeMs} ms`),
  wallTimeout: (limits: SandboxLimits) =>
    new CalculationError(
      'timeout',
      `Calculation timed out after ${limits.wallTimeMs} ms, most of it waiting for coefficient lookups`,
    ),
  memory: (limits: SandboxLimits) =>
    new CalculationError('memory', `Calculation ran out of memory (limit ${mib(limits.memoryBytes)})`),
  stack: () => new CalculationError('stack', 'Calculation exceeded the stack limit (recursion too deep)'),
  pending: () =>
    new CalculationError(
      'pending',
      'Calculation never finished: it awaits a promise that nothing will ever settle',
    ),
};

/** calcCode closed the wrapper function early (to run code of its own when compiled). */
export function notOneFunction(): CalculationError {
  return new CalculationError(
    'code',
    'calcCode must be the body of one function: it closes the function before its end',
    1,
    1,
  );
}

/**
 * The CalculationError for an error thrown inside QuickJS: the limits QuickJS signals with an
 * InternalError, or the calculation's own error with the calcCode line it came from.
 */
export function calculationErrorOf(error: GuestError, limits: SandboxLimits): CalculationError {
  const name = text(error.name);
  const message = text(error.message);
  if (name === 'InternalError') {
    if (message === 'out of memory') return limitErrors.memory(limits);
    if (message === 'stack overflow') return limitErrors.stack();
    if (message === 'interrupted') return limitErrors.timeout(limits);
  }
  // QuickJS quotes the name ('process' is not defined); say it the way people know it.
  const readable = message.replace(/^'([^']+)' is not defined$/, '$1 is not defined');
  const described = clip(name ? `${name}: ${readable}` : readable || 'calcCode threw an empty value');
  const at = locate(error.stack);
  return at
    ? new CalculationError('error', `line ${at.line}: ${described}`, at.line, at.column)
    : new CalculationError('error', described);
}

/** A compile error of calcCode, with its position in calcCode. */
export function syntaxProblemOf(error: GuestError): { message: string } & SourcePosition {
  const at = locate(error.stack) ?? { line: 1, column: 1 };
  const name = text(error.name) || 'SyntaxError';
  return {
    message: clip(`${name}: ${text(error.message)} (line ${at.line}, column ${at.column})`),
    line: at.line,
    column: at.column,
  };
}
