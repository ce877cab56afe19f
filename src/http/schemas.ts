import Type, { type TSchema } from 'typebox';
import { ISSUE_CODES, type IssueCode } from '../domain/issue-codes.ts';

/** Shared schema pieces: ids, timestamps, the error body and the error responses of a route. */
export const Uuid = Type.String({ format: 'uuid', description: 'Identifier (UUID)' });
export const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601 time in UTC' });
/** A calendar year of form data (form-sites, locks, values, exports). */
export const Year = Type.Integer({
  minimum: 1900,
  maximum: 2200,
  examples: [2025],
  description: 'Calendar year',
});

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A member's role, as answers show it. */
export const RoleName = Type.Union(
  [Type.Literal('OWNER'), Type.Literal('MANAGER'), Type.Literal('COLLECTOR'), Type.Literal('VIEWER')],
  { description: 'OWNER > MANAGER > COLLECTOR > VIEWER' },
);

export const LocaleTag = Type.Union(
  [Type.Literal('en'), Type.Literal('de'), Type.Literal('fr'), Type.Literal('es'), Type.Literal('pl')],
  { description: 'A language SDCS ships, as a BCP 47 tag: en, de, fr, es or pl' },
);

export const IdParams = Type.Object({ id: Type.String({ description: 'Identifier of the record' }) });

/** The documented code of an issue (decision 225). */
export const IssueCodeSchema = Type.Enum(Object.keys(ISSUE_CODES) as IssueCode[], {
  description:
    'What kind of problem this is, for clients that say it in the person’s language (decision 225); absent on problems without a documented code. New codes may be added: show `message` for a code you do not know',
});

/** The named values of an issue for its code. */
export const IssueParamsSchema = Type.Record(
  Type.String(),
  Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
  {
    description:
      'The named values of the problem for its code (`min`, `max`, `unit`, `label`, `year`, `periodType`, `periodUnit`…): numbers raw, to be formatted by the client',
  },
);

export const ErrorBody = Type.Object(
  {
    code: Type.String({ description: 'BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT, …' }),
    message: Type.String({
      description:
        'Fixed per code for 400, 401, 403, 404 and 500 (the reason is in `issues`); else the reason',
    }),
    issues: Type.Optional(
      Type.Array(
        Type.Object({
          message: Type.String({ description: 'One problem, for people' }),
          path: Type.Optional(Type.String({ description: 'The field or row the issue is about' })),
          code: Type.Optional(IssueCodeSchema),
          params: Type.Optional(IssueParamsSchema),
        }),
        { description: 'One entry per problem (per invalid field)' },
      ),
    ),
  },
  { additionalProperties: true, description: 'Every error answer has this body' },
);

/** A real answer of each error status, shown as the example of the error responses. */
const ERROR_EXAMPLES: Record<number, Record<string, unknown>> = {
  400: {
    code: 'BAD_REQUEST',
    message: 'Invalid input data',
    issues: [
      { path: 'latitude', message: 'latitude must be a number or null' },
      { path: 'elements.0.unitId', message: 'elements.0.unitId must be a unit id or null' },
    ],
  },
  401: { code: 'UNAUTHORIZED', message: 'Authorization not provided' },
  403: {
    code: 'FORBIDDEN',
    message: 'Insufficient access',
    issues: [{ message: 'This needs the MANAGER role or higher; your role is COLLECTOR' }],
  },
  404: { code: 'NOT_FOUND', message: 'Not found', issues: [{ message: 'Site not found' }] },
  409: { code: 'CONFLICT', message: 'A record with these values already exists' },
  413: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than this operation accepts' },
  429: { code: 'TOO_MANY_REQUESTS', message: 'Too many attempts; try again in 42 s' },
  500: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' },
  503: {
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service is not ready',
    issues: [{ path: 'database', message: 'the database is unreachable' }],
  },
};

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
    const example = ERROR_EXAMPLES[status];
    out[status] = {
      ...ErrorBody,
      description: ERROR_DESCRIPTIONS[status] ?? 'Internal server error',
      ...(example ? { examples: [example] } : {}),
    } as TSchema;
  }
  return out;
}

/**
 * An error response with a description and an example of its own, for a status a route answers
 * for a reason of its own (a site limit, say): declared as JSON content, so that the document
 * keeps this example instead of the shared one of the status.
 */
export function errorAnswer(
  description: string,
  code: 'FORBIDDEN' | 'NOT_FOUND',
  issue: string,
): Record<string, unknown> {
  const message = code === 'FORBIDDEN' ? 'Insufficient access' : 'Not found';
  return {
    description,
    content: {
      'application/json': { schema: ErrorBody, example: { code, message, issues: [{ message: issue }] } },
    },
  };
}
