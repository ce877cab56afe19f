import type { SwaggerTransformObject } from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import type { Role } from '../db/schema/index.ts';
import { ROLES, roleAtLeast } from '../domain/roles.ts';
import {
  EXAMPLE_ADAPTER_VERSION,
  EXAMPLE_IDS,
  EXAMPLE_INVITATION_TOKEN,
  EXAMPLE_LOGIN,
  EXAMPLE_SSO_CODE,
} from './examples.ts';
import { errors } from './schemas.ts';

/**
 * The statuses, headers and examples every operation of the OpenAPI document declares, generated
 * in one place from what a route declares anyway (its access, whether it reads a body or names a
 * record in its path), so that a new route cannot forget them:
 *
 * | status | when                                                                 |
 * |--------|----------------------------------------------------------------------|
 * | 400    | every API route (unknown query parameters are refused everywhere)    |
 * | 401    | every route that is not public                                       |
 * | 403    | every route whose `minRole` is above VIEWER (the role check)         |
 * | 404    | every route with a path parameter (another tenant's record, no such) |
 * | 409    | every route that writes (a concurrent change, a duplicate)           |
 * | 413    | every route that reads a JSON body (the body limit)                  |
 * | 429    | every API route not exempt (`rateLimit: false`) from the rate limits  |
 * | 500    | every route                                                          |
 * | 503    | every API route (database unavailable, overloaded)                   |
 *
 * Every response declares `x-request-id` and the `RateLimit-*` headers; 429 and 503 declare
 * `Retry-After`. Success responses get a description; 400 and 403 an example the route can
 * answer. Request body examples (`examples: [...]` on the body schema) become named examples
 * with a summary, and those that name records say so. What a route declares itself wins.
 * Must run before routes are added.
 */
export function registerOpenApiTruth(app: FastifyInstance, prefix: string): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.url.startsWith(prefix)) return;
    const schema = (route.schema ?? {}) as Record<string, unknown> & { response?: Record<string, unknown> };
    if (schema['hide']) return;
    route.schema = schema;
    const config = (route.config ?? {}) as { public?: boolean; minRole?: Role; rateLimit?: unknown };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const response: Record<string, unknown> = { ...(schema.response ?? {}) };
    const add = (status: number) => {
      if (response[status] === undefined && response[`${String(status)[0]}xx`] === undefined) {
        response[status] = errors(status)[status];
      }
    };
    add(400);
    if (!config.public) add(401);
    if (config.minRole && config.minRole !== 'VIEWER') add(403);
    if (route.url.includes(':')) add(404);
    if (methods.some((m) => m !== 'GET' && m !== 'HEAD')) add(409);
    if (schema['body']) add(413);
    // Health checks are exempt from the rate limit (`rateLimit: false`).
    if (config.rateLimit !== false) add(429);
    add(500);
    add(503);

    const summary = String(schema['summary'] ?? '').replace(/\s*\([^)]*\)\s*$/, '');
    for (const [status, declared] of Object.entries(response)) {
      const code = Number(status);
      let entry = { ...(declared as Record<string, unknown>) };
      if (code >= 200 && code < 300 && !entry['description']) {
        entry['description'] = `${SUCCESS[code] ?? 'Success'}: ${summary || 'done'}`;
      }
      if (code === 400 && isErrorBody(entry)) {
        entry = { ...entry, examples: [badRequestExample(schema)] };
      }
      if (code === 403 && isErrorBody(entry) && config.minRole && config.minRole !== 'VIEWER') {
        entry = { ...entry, examples: [forbiddenExample(config.minRole)] };
      }
      entry['headers'] = {
        ...COMMON_HEADERS,
        ...(code === 429 || code === 503 ? RETRY_HEADERS : {}),
        ...((entry['headers'] as Record<string, unknown> | undefined) ?? {}),
      };
      response[status] = entry;
    }
    schema.response = response;

    const body = schema['body'] as (Record<string, unknown> & { examples?: unknown[] }) | undefined;
    if (body && !body['x-examples'] && Array.isArray(body.examples) && body.examples.length > 0) {
      const { examples, ...rest } = body;
      schema['body'] = { ...rest, 'x-examples': namedExamples(summary, examples) };
    }
  });
}

const SUCCESS: Record<number, string> = { 200: 'Done', 201: 'Created', 204: 'Done, no content' };

const isErrorBody = (entry: Record<string, unknown>) =>
  entry['content'] === undefined && (entry['properties'] as Record<string, unknown> | undefined)?.['code'];

const integerHeader = (description: string) => ({ type: 'integer', minimum: 0, description });

/** Headers any answer of the API may carry. */
export const COMMON_HEADERS: Record<string, unknown> = {
  'X-Request-Id': {
    type: 'string',
    description:
      'The request’s id (the `X-Request-Id` sent, when it is 1-100 of `A-Za-z0-9_.-`): quote it to support',
  },
  'RateLimit-Limit': integerHeader('Requests allowed in the current window (when a rate limit applies)'),
  'RateLimit-Remaining': integerHeader('Requests left in the current window'),
  'RateLimit-Reset': integerHeader('Seconds until the window resets'),
  'X-Content-Type-Options': {
    type: 'string',
    enum: ['nosniff'],
    description: 'Browsers must not guess another content type than the one declared',
  },
  'Content-Security-Policy': {
    type: 'string',
    description: "`frame-ancestors 'none'` (no framing), unless the route declares a policy of its own",
  },
  'X-Frame-Options': {
    type: 'string',
    enum: ['DENY'],
    description:
      'No framing, for browsers that do not read `frame-ancestors` (absent where a route sets its own policy)',
  },
};

const RETRY_HEADERS: Record<string, unknown> = {
  'Retry-After': integerHeader('Seconds to wait before sending the request again'),
};

/** A 400 this operation can answer: its first required body field missing, else an unknown query parameter. */
function badRequestExample(schema: Record<string, unknown>): Record<string, unknown> {
  const required = (schema['body'] as { required?: string[] } | undefined)?.required?.[0];
  const path = required ?? 'query.sort';
  const message = required ? `${required} is required` : `${path} is not an allowed property`;
  return { code: 'BAD_REQUEST', message: 'Invalid input data', issues: [{ path, message }] };
}

/** The refusal of the role check for a role just below the route's. */
function forbiddenExample(minRole: Role): Record<string, unknown> {
  const below = ROLES.find((r) => !roleAtLeast(r, minRole)) ?? 'VIEWER';
  const message =
    minRole === 'OWNER'
      ? `Only organization owners can do this; your role is ${below}`
      : `This needs the ${minRole} role or higher; your role is ${below}`;
  return { code: 'FORBIDDEN', message: 'Insufficient access', issues: [{ message }] };
}

/** The placeholders of src/http/examples.ts, by what they stand for. */
const PLACEHOLDERS: [string, string][] = [
  ...Object.entries(EXAMPLE_IDS).map(([name, id]): [string, string] => [id, name]),
  [EXAMPLE_INVITATION_TOKEN, 'the token of an invitation e-mail'],
  [EXAMPLE_SSO_CODE, 'the one-time code of a finished single sign-on'],
  [EXAMPLE_ADAPTER_VERSION, 'the adapter version of a source adapter definition'],
  [EXAMPLE_LOGIN.email, 'an existing account'],
];

/**
 * Request examples as OpenAPI named examples: a summary each (the operation's, with the
 * example's name when it has one) and, when it names records by placeholder, a description
 * saying which to replace.
 */
export function namedExamples(summary: string, values: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  values.forEach((value, index) => {
    const title = exampleTitle(value);
    let text = title ? `${summary}: ${title}` : summary || 'Example';
    if (!title && values.length > 1) text += ` (${index + 1} of ${values.length})`;
    const json = JSON.stringify(value);
    const needs = PLACEHOLDERS.filter(([placeholder]) => json.includes(placeholder)).map(([, name]) => name);
    let key = (title ?? summary)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 50);
    if (!key || out[key] || (!title && values.length > 1)) key = `${key || 'example'}-${index + 1}`;
    out[key] = {
      summary: text,
      ...(needs.length > 0
        ? {
            description: `Needs existing records: replace the placeholder values with those of your organization (${[...new Set(needs)].join(', ')}).`,
          }
        : {}),
      value,
    };
  });
  return out;
}

function exampleTitle(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  for (const field of ['name', 'title', 'label', 'email']) {
    const text = (value as Record<string, unknown>)[field];
    if (typeof text === 'string' && text.length <= 80) return text;
  }
  return undefined;
}

/** Path parameters that name records are UUIDs: said in the document (a malformed one is a 404, as an unknown id). */
export function documentPathIds({ schema, url }: { schema: unknown; url: string }) {
  const params = (schema as { params?: { properties?: Record<string, TSchema> } } | undefined)?.params;
  if (!params?.properties) return { schema: schema as Record<string, unknown>, url };
  const properties = Object.fromEntries(
    Object.entries(params.properties).map(([name, property]) => [
      name,
      /^(id|\w+Id)$/.test(name) && (property as { type?: string }).type === 'string'
        ? { ...property, format: 'uuid' }
        : property,
    ]),
  );
  return { schema: { ...(schema as object), params: { ...params, properties } }, url };
}

type Json = Record<string, any>;

/**
 * The name of a status's error answer in `components.responses`: the role check's 403 says the
 * role the operation needs, so it has one per role.
 */
function responseName(status: string, operation: Json): string | undefined {
  const name = RESPONSE_NAMES[status];
  const role = String(operation['x-min-role'] ?? '');
  return status === '403' && role && role !== 'VIEWER'
    ? `${name}${role[0]}${role.slice(1).toLowerCase()}`
    : name;
}

/** Error answers that read the same on most operations, by status. */
const RESPONSE_NAMES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '413': 'PayloadTooLarge',
  '429': 'TooManyRequests',
  '500': 'InternalError',
  '503': 'Unavailable',
};

/**
 * The served document with what every operation repeats stated once: the common response headers
 * become `components.headers` and the error body `components.schemas.Error`, referred to by
 * `$ref`, and an error answer that reads the same as the first of its status (its description,
 * headers and example) becomes one of `components.responses`. Without this the document is about
 * 2 MB, nearly half of it the same seven headers over a thousand responses, and Swagger UI took
 * 7.5 s to draw /docs. A header, error body or answer that a route declares differently stays
 * where it is.
 */
export const compactDocument: SwaggerTransformObject = (document) => {
  const doc = structuredClone(
    'openapiObject' in document ? document.openapiObject : document.swaggerObject,
  ) as Json;
  const headers: Json = {};
  const seen = new Map<string, string>();
  let errorBody: string | undefined;
  const responses: Json = {};
  const seenResponses = new Map<string, string>();
  const named: { responses: Json; status: string; name: string; text: string }[] = [];
  const shared = new Set([...Object.keys(COMMON_HEADERS), ...Object.keys(RETRY_HEADERS)]);
  for (const item of Object.values<Json>(doc['paths'] ?? {})) {
    for (const operation of Object.values<Json>(item)) {
      for (const [status, response] of Object.entries<Json>(operation['responses'] ?? {})) {
        for (const [name, header] of Object.entries<Json>(response['headers'] ?? {})) {
          if (!shared.has(name)) continue;
          const text = JSON.stringify(header);
          if (!seen.has(name)) {
            seen.set(name, text);
            headers[name] = header;
          }
          if (seen.get(name) === text) response['headers'][name] = { $ref: `#/components/headers/${name}` };
        }
        const media = response['content']?.['application/json'];
        if (Number(status) >= 400 && media?.schema) {
          const { description: _, ...shape } = media.schema as Json;
          const text = JSON.stringify(shape);
          errorBody ??= text;
          if (text === errorBody) media.schema = { $ref: '#/components/schemas/Error' };
        }
        const name = responseName(status, operation);
        if (name)
          named.push({ responses: operation['responses'], status, name, text: JSON.stringify(response) });
      }
    }
  }
  // The shared answer of a name is the one most operations give word for word, so that an
  // operation with an example of its own (a site limit's 403, say) keeps it wherever it comes.
  const counts = new Map<string, Map<string, number>>();
  for (const { name, text } of named) {
    const byText = counts.get(name) ?? new Map<string, number>();
    byText.set(text, (byText.get(text) ?? 0) + 1);
    counts.set(name, byText);
  }
  for (const [name, byText] of counts) {
    seenResponses.set(name, [...byText].reduce((a, b) => (b[1] > a[1] ? b : a))[0]);
  }
  for (const { responses: answers, status, name, text } of named) {
    if (seenResponses.get(name) !== text) continue;
    responses[name] ??= structuredClone(answers[status]);
    answers[status] = { $ref: `#/components/responses/${name}` };
  }
  doc['components'] ??= {};
  const components = doc['components'] as Json;
  components['headers'] = { ...headers, ...(components['headers'] ?? {}) };
  components['responses'] = { ...responses, ...(components['responses'] ?? {}) };
  if (errorBody) {
    components['schemas'] = {
      ...(components['schemas'] ?? {}),
      Error: {
        ...JSON.parse(errorBody),
        description: 'An error: a code, a message for people, and the issues found',
      },
    };
  }
  return doc;
};
