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
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** Parses a request body; throws a 400 AppError whose issue names the offending field. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw badRequest('The request body is empty: send a JSON value');
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, PARSE_OPTIONS);
  } catch (error) {
    throw badRequest(`The request body is not valid JSON: ${(error as Error).message}`);
  }
  // A NUL can only come from a `\u0000` escape (JSON forbids raw control characters in strings),
  // so most bodies skip the string checks.
  const problem = check(value, 0, text.includes('\\u0000'));
  if (problem) {
    const path = [...problem.keys].reverse().join('.').replaceAll('\0', '\\u0000');
    const message = describe(problem.kind, path || 'The body');
    throw badRequest('Invalid input data', [path ? { message, path } : { message }]);
  }
  return value;
}

interface Problem {
  kind: 'number' | 'nul' | 'key' | 'depth';
  /** The keys leading to the value, innermost first (collected while unwinding). */
  keys: string[];
}

/** One pass over the parsed value; the path is only built for the value that fails. */
function check(value: unknown, depth: number, nul: boolean): Problem | undefined {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? undefined : { kind: 'number', keys: [] };
    case 'string':
      return nul && value.includes('\0') ? { kind: 'nul', keys: [] } : undefined;
    case 'object': {
      if (value === null) return undefined;
      if (depth >= MAX_BODY_DEPTH) return { kind: 'depth', keys: [] };
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const problem = check(value[i], depth + 1, nul);
          if (problem) {
            problem.keys.push(String(i));
            return problem;
          }
        }
        return undefined;
      }
      const record = value as Record<string, unknown>;
      for (const key in record) {
        if (nul && key.includes('\0')) return { kind: 'key', keys: [key] };
        const problem = check(record[key], depth + 1, nul);
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
    case 'key':
      return `${subject} is a property name with the NUL character (\\u0000), which is not allowed`;
    case 'depth':
      return `${subject} nests deeper than ${MAX_BODY_DEPTH} levels`;
  }
}
