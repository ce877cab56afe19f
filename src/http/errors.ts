/** The closed set of error codes the API answers with, and the status of each. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One problem behind an error; `path` names the field or row when there is one. */
export interface Issue {
  message: string;
  path?: string;
}

/** The one error type of the service; the error handler turns it into `{code, message, issues}`. */
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
