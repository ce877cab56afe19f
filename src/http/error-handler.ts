import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/client.ts';
import {
  AppError,
  coded,
  ERROR_STATUS,
  type ErrorCode,
  FIXED_MESSAGE,
  type Issue,
} from '../domain/errors.ts';
import type { IssueCode, IssueParams } from '../domain/issue-codes.ts';
import { type AjvError, plainErrors } from './validation.ts';

interface AjvIssue {
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** What a 503 asks the client to wait before sending the request again. */
export const RETRY_AFTER_SECONDS = 5;

const CODE_BY_STATUS = new Map<number, ErrorCode>(
  Object.entries(ERROR_STATUS).map(([code, status]) => [status, code as ErrorCode]),
);

/**
 * PostgreSQL refusing a value the validation let through (any data exception, class 22):
 * input the service cannot store, so a 400 rather than a 500. The error rarely names a column;
 * services check the fields they can name before the database sees them.
 */
const PG_INPUT_ERRORS: Record<string, string> = {
  '22021': 'A text contains a character that cannot be stored (such as the NUL character)',
  '22P05': 'A text contains a character that cannot be stored (such as the NUL character)',
  '22001': 'A text is longer than its field allows',
  '22003': 'A number is out of the range its field allows',
  '22008': 'A date or time is out of the supported range',
  '22P02': 'A value is not valid for its type (such as an identifier that is not a UUID)',
  '22007': 'A date or time is not valid',
  '22012': 'A calculation divided by zero',
  '22023': 'A value is not valid for its field',
};

/** Turns Ajv's findings into issues whose path names the field (`values.2.periodUnit`). */
function validationIssues(errors: AjvIssue[], part: string | undefined): Issue[] {
  // Body fields are named as they are (`values.2.value`); the others by where they were sent.
  const where: Record<string, string> = { querystring: 'query', params: 'path', headers: 'header' };
  const prefix = part === 'body' || !part ? '' : `${where[part] ?? part}.`;
  return plainErrors(errors as AjvError[]).map((e) => {
    const segments = e.instancePath.split('/').filter(Boolean);
    const extra = e.params?.['missingProperty'] ?? e.params?.['additionalProperty'];
    if (typeof extra === 'string') segments.push(extra);
    const path = prefix + segments.join('.');
    let message = e.message ?? 'is invalid';
    if (e.params?.['additionalProperty']) message = 'is not an allowed property';
    if (e.params?.['missingProperty']) message = 'is required';
    if (e.params?.['allowedValues']) message += `: ${(e.params['allowedValues'] as unknown[]).join(', ')}`;
    const { code, params } = validationCode(e);
    return coded(code, path ? `${path} ${message}` : message, { field: path, ...params }, path || undefined);
  });
}

/** The issue code of a schema keyword that failed, and its values (decision 225). */
function validationCode(e: AjvError): { code: IssueCode; params: IssueParams } {
  const limit = e.params?.['limit'];
  const number: IssueParams = typeof limit === 'number' ? { limit } : {};
  switch (e.keyword) {
    case 'required':
      return { code: 'request.required', params: {} };
    case 'additionalProperties':
      return { code: 'request.additionalProperties', params: {} };
    case 'type':
      return { code: 'request.type', params: { expected: String(e.params?.['type'] ?? '') } };
    case 'minimum':
    case 'exclusiveMinimum':
      return { code: 'request.minimum', params: number };
    case 'maximum':
    case 'exclusiveMaximum':
      return { code: 'request.maximum', params: number };
    case 'minLength':
      return { code: 'request.minLength', params: number };
    case 'maxLength':
      return { code: 'request.maxLength', params: number };
    case 'enum': {
      const allowed = e.params?.['allowedValues'];
      return { code: 'request.enum', params: Array.isArray(allowed) ? { allowed: allowed.join(', ') } : {} };
    }
    case 'format':
      return { code: 'request.format', params: { format: String(e.params?.['format'] ?? '') } };
    default:
      return { code: 'request.invalid', params: {} };
  }
}

/**
 * The error body. Codes with a fixed message (400, 401, 403, 404, 500) carry it, and the
 * specific reason moves into the issues: the given issues when there are any, else the
 * specific message as the single issue. Other codes keep their specific message.
 * (Unexpected faults reach this with the fixed message only, so their body says nothing more.)
 */
export function errorBody(code: ErrorCode, message: string, issues?: Issue[]): Record<string, unknown> {
  const fixed = FIXED_MESSAGE[code];
  let list = issues?.length ? issues : undefined;
  if (fixed === undefined) return list ? { code, message, issues: list } : { code, message };
  if (!list && message !== fixed) list = [{ message }];
  return list ? { code, message: fixed, issues: list } : { code, message: fixed };
}

function send(reply: FastifyReply, code: ErrorCode, message: string, issues?: Issue[]) {
  if (code === 'SERVICE_UNAVAILABLE' && !reply.hasHeader('retry-after')) {
    reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  }
  return reply
    .status(ERROR_STATUS[code])
    .type('application/json')
    .send(errorBody(code, message, issues));
}

/** The one place that writes error bodies `{code, message, issues?}`. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError & { validationContext?: string }, request, reply) => {
    if (error instanceof AppError) {
      // A refusal that knows when to try again (heavy work beyond an organization's share) says so.
      const wait = (error as AppError & { retryAfterSeconds?: unknown }).retryAfterSeconds;
      if (typeof wait === 'number' && !reply.hasHeader('retry-after'))
        reply.header('retry-after', String(wait));
      // Bodies with extra fields (an invitation's `{success: false, message}`) document their
      // own message, for people: it stays as it is.
      if (error.extra) {
        const body = { ...error.extra, code: error.code, message: error.message };
        return reply
          .status(error.status)
          .type('application/json')
          .send(error.issues?.length ? { ...body, issues: error.issues } : body);
      }
      return send(reply, error.code, error.message, error.issues);
    }
    if (error.validation) {
      return send(
        reply,
        'BAD_REQUEST',
        'Invalid input data',
        validationIssues(error.validation as AjvIssue[], error.validationContext),
      );
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(reply, 'PAYLOAD_TOO_LARGE', 'The request body is larger than this operation accepts');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(reply, 'BAD_REQUEST', 'Send the request body as application/json');
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return send(reply, 'SERVICE_UNAVAILABLE', 'The database is unavailable; try again shortly');
    }
    const pgCode = (error as { code?: string }).code;
    if (pgCode === '23505') return send(reply, 'CONFLICT', 'A record with these values already exists');
    if (pgCode === '40P01' || pgCode === '40001') {
      request.log.warn({ err: error }, 'transaction aborted by a concurrent one');
      return send(
        reply,
        'CONFLICT',
        'The request collided with a concurrent change and was undone; send it again',
      );
    }
    // Class 22 (data exception): a value the database cannot hold or read as its type.
    if (typeof pgCode === 'string' && /^22[0-9A-Z]{3}$/.test(pgCode)) {
      request.log.warn({ err: error }, 'the database refused an input value the validation let through');
      const column = (error as { column?: string }).column;
      const message = PG_INPUT_ERRORS[pgCode] ?? 'A value is not valid for its field';
      return send(reply, 'BAD_REQUEST', 'Invalid input data', [
        column ? { path: column, message: `${column}: ${message}` } : { message },
      ]);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Other client errors of the framework (a Content-Length that does not match the body…).
      return send(reply, CODE_BY_STATUS.get(status) ?? 'BAD_REQUEST', error.message);
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, 'INTERNAL_SERVER_ERROR', 'Internal server error');
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) =>
    send(reply, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`),
  );
}

/**
 * Fastify's `frameworkErrors`: errors found while routing, before the error handler exists
 * for the request. A path that cannot be decoded or has an overlong parameter names no
 * record, so it is a 404 like any malformed id in a path.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  // The app's hooks do not run for these answers.
  reply.header('x-request-id', request.id);
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      send(reply, 'NOT_FOUND', 'The path is not a valid URL: it has a malformed percent-escape');
      return;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      send(reply, 'NOT_FOUND', 'A path parameter is longer than any identifier');
      return;
  }
  request.log.error({ err: error }, 'framework error');
  send(reply, 'INTERNAL_SERVER_ERROR', 'Internal server error');
}

/**
 * Fastify's `clientErrorHandler`: the HTTP request itself could not be read (a bad header
 * line, a wrong Content-Length, headers over the size limit, too slow). No request or reply
 * exists yet, so the answer is written on the socket, with the usual error body, and the
 * connection is closed, as Node does by default.
 */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let code: ErrorCode = 'BAD_REQUEST';
  let reason = `The HTTP request is malformed: ${(error as { reason?: string }).reason ?? error.message}`;
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    code = 'REQUEST_HEADER_FIELDS_TOO_LARGE';
    reason = 'The request headers are larger than the server accepts';
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    code = 'REQUEST_TIMEOUT';
    reason = 'The request was not received in time';
  }
  // Answer only if no response has started on this connection (Node's own rule).
  const current = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    const status = ERROR_STATUS[code];
    const body = JSON.stringify(errorBody(code, reason));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
