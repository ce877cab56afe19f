import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode, type Issue } from './errors.ts';

interface AjvIssue {
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

const CODE_BY_STATUS = new Map<number, ErrorCode>(
  Object.entries(ERROR_STATUS).map(([code, status]) => [status, code as ErrorCode]),
);

/** Turns Ajv's findings into issues whose path names the field (`values.2.periodUnit`). */
function validationIssues(errors: AjvIssue[], part: string | undefined): Issue[] {
  // Body fields are named as they are (`values.2.value`); the others by where they were sent.
  const where: Record<string, string> = { querystring: 'query', params: 'path', headers: 'header' };
  const prefix = part === 'body' || !part ? '' : `${where[part] ?? part}.`;
  return errors.map((e) => {
    const segments = e.instancePath.split('/').filter(Boolean);
    const extra = e.params?.['missingProperty'] ?? e.params?.['additionalProperty'];
    if (typeof extra === 'string') segments.push(extra);
    const path = prefix + segments.join('.');
    let message = e.message ?? 'is invalid';
    if (e.params?.['additionalProperty']) message = 'is not an allowed property';
    if (e.params?.['missingProperty']) message = 'is required';
    if (e.params?.['allowedValues']) message += `: ${(e.params['allowedValues'] as unknown[]).join(', ')}`;
    return { message: path ? `${path} ${message}` : message, path: path || undefined };
  });
}

function send(reply: FastifyReply, code: ErrorCode, message: string, issues?: Issue[], extra?: object) {
  const body: Record<string, unknown> = { ...extra, code, message };
  if (issues?.length) body['issues'] = issues;
  return reply.status(ERROR_STATUS[code]).type('application/json').send(body);
}

/** The one place that writes error bodies `{code, message, issues?}`. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError & { validationContext?: string }, request, reply) => {
    if (error instanceof AppError) return send(reply, error.code, error.message, error.issues, error.extra);
    if (error.validation) {
      return send(
        reply,
        'BAD_REQUEST',
        'Invalid input data',
        validationIssues(error.validation as AjvIssue[], error.validationContext),
      );
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(reply, 'BAD_REQUEST', 'The request body is not valid JSON', [{ message: error.message }]);
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(reply, 'PAYLOAD_TOO_LARGE', 'The request body is larger than this operation accepts');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(reply, 'UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json');
    }
    const pgCode = (error as { code?: string }).code;
    if (pgCode === '23505') return send(reply, 'CONFLICT', 'A record with these values already exists');
    if (pgCode === '40P01' || pgCode === '40001') {
      request.log.warn({ err: error }, 'transaction aborted by a concurrent one');
      return send(reply, 'CONFLICT', 'The request collided with a concurrent change and was undone; send it again');
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = CODE_BY_STATUS.get(status) ?? 'BAD_REQUEST';
      return reply.status(status).send({ code, message: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, 'INTERNAL_SERVER_ERROR', 'Internal server error');
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) =>
    send(reply, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`),
  );
}
