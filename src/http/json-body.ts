import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { badRequest } from '../domain/errors.ts';

/** Deeper bodies are refused: storing them (`JSON.stringify`) would overflow the stack. */
export const MAX_BODY_DEPTH = 100;

const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

/**
 * Bodies are JSON and nothing else: other content types get a 400 from the error handler.
 * The parser refuses what JSON allows but the service cannot hold: numbers that overflow to
 * Infinity (`1e400`), the NUL character (PostgreSQL text cannot store it) and absurd nesting.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    try {
      checkCharset(request.headers['content-type']);
      // A route that reads no body (a DELETE sent with a JSON content type) accepts an empty one.
      if ((body as string).length === 0 && !request.routeOptions.schema?.body) {
        done(null, undefined);
        return;
      }
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** JSON is UTF-8 (RFC 8259): a body declared in another charset would be misread, so it is refused. */
export function checkCharset(contentType: string | undefined): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw badRequest('Invalid input data', [
      {
        path: 'content-type',
        message: `The body must be UTF-8 JSON; charset=${charset} is not accepted (send charset=utf-8 or none)`,
      },
    ]);
  }
}

/** Parses a request body; throws a 400 AppError whose issue names the offending field. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw badRequest('The request body is empty: send a JSON value');
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, PARSE_OPTIONS);
  } catch (error) {
    const path = prototypeKeyPath(text);
    if (path) {
      throw badRequest('Invalid input data', [
        { path, message: `${path} is a property name that is not allowed (prototype pollution)` },
      ]);
    }
    throw badRequest(`The request body is not valid JSON: ${(error as Error).message}`);
  }
  // A NUL or a lone UTF-16 surrogate can only come from a `\u` escape (JSON forbids raw control
  // characters in strings; bytes that are not UTF-8 are decoded as U+FFFD), so most bodies skip
  // the string checks.
  const strings: StringChecks = {
    nul: text.includes('\\u0000'),
    surrogate: /\\u[dD][89a-fA-F]/.test(text),
  };
  const problem = check(value, 0, strings);
  if (problem) {
    const path = printable([...problem.keys].reverse().join('.'));
    const message = describe(problem.kind, path || 'The body');
    throw badRequest('Invalid input data', [path ? { message, path } : { message }]);
  }
  return value;
}

/** A path as text that can be sent back: NUL and lone surrogates written as escapes. */
function printable(path: string): string {
  return path.replace(/\0|\p{Surrogate}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** With the `u` flag a surrogate pair is one code point: only lone surrogates match. */
const LONE_SURROGATE = /\p{Surrogate}/u;

interface StringChecks {
  nul: boolean;
  surrogate: boolean;
}

/** What is wrong with a string, if anything. */
function stringProblem(value: string, checks: StringChecks): Problem['kind'] | undefined {
  if (checks.nul && value.includes('\0')) return 'nul';
  if (checks.surrogate && LONE_SURROGATE.test(value)) return 'surrogate';
  return undefined;
}

/**
 * Where a `__proto__` or `constructor.prototype` key is (the body was refused for one): the
 * plain parser keeps such keys as ordinary properties, so the path can be found.
 */
function prototypeKeyPath(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const search = (value: unknown, path: string[], depth: number): string[] | undefined => {
    if (typeof value !== 'object' || value === null || depth > MAX_BODY_DEPTH) return undefined;
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      if (key === '__proto__') return [...path, key];
      if (
        key === 'constructor' &&
        typeof child === 'object' &&
        child !== null &&
        Object.hasOwn(child, 'prototype')
      ) {
        return [...path, key, 'prototype'];
      }
      const found = search(child, [...path, key], depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return search(parsed, [], 0)?.join('.');
}

interface Problem {
  kind: 'number' | 'nul' | 'surrogate' | 'key' | 'depth';
  /** The keys leading to the value, innermost first (collected while unwinding). */
  keys: string[];
}

/** One pass over the parsed value; the path is only built for the value that fails. */
function check(value: unknown, depth: number, strings: StringChecks): Problem | undefined {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? undefined : { kind: 'number', keys: [] };
    case 'string': {
      const kind = stringProblem(value, strings);
      return kind ? { kind, keys: [] } : undefined;
    }
    case 'object': {
      if (value === null) return undefined;
      if (depth >= MAX_BODY_DEPTH) return { kind: 'depth', keys: [] };
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const problem = check(value[i], depth + 1, strings);
          if (problem) {
            problem.keys.push(String(i));
            return problem;
          }
        }
        return undefined;
      }
      const record = value as Record<string, unknown>;
      for (const key in record) {
        if (stringProblem(key, strings)) return { kind: 'key', keys: [key] };
        const problem = check(record[key], depth + 1, strings);
        if (problem) {
          problem.keys.push(key);
          return problem;
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function describe(kind: Problem['kind'], subject: string): string {
  switch (kind) {
    case 'number':
      return `${subject} must be a finite number`;
    case 'nul':
      return `${subject} must not contain the NUL character (\\u0000)`;
    case 'surrogate':
      return `${subject} contains a lone UTF-16 surrogate (such as \\ud800), which is not a character`;
    case 'key':
      return `${subject} is a property name with the NUL character (\\u0000) or a lone UTF-16 surrogate, which is not allowed`;
    case 'depth':
      return `${subject} nests deeper than ${MAX_BODY_DEPTH} levels`;
  }
}
