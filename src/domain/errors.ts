import type { IssueCode, IssueParams } from './issue-codes.ts';

/** The closed set of error codes the API answers with, and the status of each. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
  REQUEST_HEADER_FIELDS_TOO_LARGE: 431,
  INTERNAL_SERVER_ERROR: 500,
  /** The database is away or the process is saturated: sent with `Retry-After`. */
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The contract fixes the message of these codes; the specific reason of such an error
 * travels in its issues. The other codes keep their specific message.
 */
export const FIXED_MESSAGE: Partial<Record<ErrorCode, string>> = {
  BAD_REQUEST: 'Invalid input data',
  UNAUTHORIZED: 'Authorization not provided',
  FORBIDDEN: 'Insufficient access',
  NOT_FOUND: 'Not found',
  INTERNAL_SERVER_ERROR: 'Internal server error',
};

/**
 * One problem behind an error; `path` names the field or row when there is one. `code` and
 * `params` (decision 225) let a client say it in the person's language; `message` is English.
 */
export interface Issue {
  message: string;
  path?: string;
  code?: IssueCode;
  params?: IssueParams;
}

/** An issue with its code (and params when it has values): `coded('value.notNumber', message)`. */
export function coded(code: IssueCode, message: string, params?: IssueParams, path?: string): Issue {
  return {
    message,
    ...(path === undefined ? {} : { path }),
    code,
    ...(params && Object.keys(params).length > 0 ? { params } : {}),
  };
}

/**
 * The one error type of the service; the error handler turns it into `{code, message, issues}`.
 * For the codes of FIXED_MESSAGE the body's message is the fixed one and this message, when
 * there are no issues, becomes the single issue (unless `extra` is set: then it is kept).
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: Issue[],
    /** Extra body fields some operations document beside the error fields. */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const badRequest = (message: string, issues?: Issue[], extra?: Record<string, unknown>) =>
  new AppError('BAD_REQUEST', message, issues, extra);

/** A 400 naming one field: for ids in bodies or queries that match nothing of the caller's. */
export const invalidField = (path: string, message: string) => badRequest(message, [{ message, path }]);

export const unauthorized = (message = 'Authorization not provided') => new AppError('UNAUTHORIZED', message);

export const forbidden = (message = 'Insufficient access') => new AppError('FORBIDDEN', message);

export const notFound = (what = 'Resource') => new AppError('NOT_FOUND', `${what} not found`);

export const conflict = (message: string) => new AppError('CONFLICT', message);

/** Throws a 403 unless `allowed`: the one way route handlers check permissions. */
export function authorize(allowed: boolean, message?: string): asserts allowed {
  if (!allowed) throw forbidden(message);
}
