import type { FastifyInstance } from 'fastify';
import Type, { type TSchema } from 'typebox';

/** Shared schema pieces: ids, timestamps, the error body and the error responses of a route. */
export const Uuid = Type.String({ format: 'uuid', description: 'Identifier (UUID)' });
export const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601 time in UTC' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const IdParams = Type.Object({ id: Type.String({ description: 'Identifier of the record' }) });

export const ErrorBody = Type.Object(
  {
    code: Type.String({ description: 'BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT, …' }),
    message: Type.String(),
    issues: Type.Optional(
      Type.Array(
        Type.Object({
          message: Type.String(),
          path: Type.Optional(Type.String({ description: 'The field or row the issue is about' })),
        }),
      ),
    ),
  },
  { additionalProperties: true, description: 'Every error answer has this body' },
);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input; `issues` names each field',
  401: 'No valid credential',
  403: 'The caller’s role does not allow this',
  404: 'No such record in the caller’s organization',
  409: 'Conflicts with stored data',
  413: 'Body too large',
  429: 'Too many attempts; wait for `Retry-After` seconds',
  503: 'The database is unavailable or the service is overloaded; retry after `Retry-After` seconds',
};

/** The error responses of a route, for its schema (and so for the OpenAPI document). */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of [...statuses, 500]) {
    out[status] = {
      ...ErrorBody,
      description: ERROR_DESCRIPTIONS[status] ?? 'Internal server error',
    } as TSchema;
  }
  return out;
}

/**
 * Every route that reads a JSON body can answer 413 (the body limit): adds it to the error
 * responses of such routes, so the OpenAPI document lists it. Must run before routes are added.
 */
export function documentBodyLimit(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (!route.schema?.body || !response || response['413'] || response['4xx']) return;
    route.schema.response = { ...response, 413: errors(413)[413] };
  });
}
