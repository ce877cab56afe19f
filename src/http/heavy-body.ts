import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../domain/errors.ts';
import { canonicalHash } from '../lib/canonical.ts';
import type { HeavyErrors, HeavyWork } from '../lib/heavy/pool.ts';
import { checkCharset, parseJsonBody } from './json-body.ts';
import { compileBodyValidator } from './validation.ts';

/**
 * Large JSON bodies parsed and validated off the request loop (decision 0177). A 10,000-row import
 * body (1-10 MiB) took 20-35 ms of the event loop to parse and validate, and as long again for its
 * canonical hash: with this parser, a worker of the heavy-work pool does all three (the same
 * parser, the same Ajv options, so the same answers `{code, message, issues}`), and the value
 * comes back in parts of a few hundred array items, each deserialized in its own turn of the loop.
 */

/** A refusal of heavy work (429) that tells when to try again (the error handler sends Retry-After). */
export class HeavyRefusal extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('TOO_MANY_REQUESTS', message);
  }
}

/** The heavy-work pool's errors as the service answers them. */
export const heavyErrors: HeavyErrors = {
  refused: (message, retryAfterSeconds) => new HeavyRefusal(message, retryAfterSeconds),
  unavailable: (message) => new AppError('SERVICE_UNAVAILABLE', message),
  failed: (failure) => {
    // Ajv's findings: answered by the error handler as Fastify's validation errors are.
    if (failure.validation)
      return Object.assign(new Error(failure.message), {
        validation: failure.validation,
        validationContext: failure.validationContext ?? 'body',
      });
    if (failure.name === 'AppError' && failure.code)
      return new AppError(failure.code as ErrorCode, failure.message, failure.issues);
    return new Error(failure.message);
  },
};

/** The task's input: the body's bytes, the body schema (by a key, compiled once per worker). */
export interface JsonBodyInput {
  bytes: Uint8Array;
  schemaKey: string;
  schema: object;
  /** Also answers the body's canonical hash (SHA-256 of its canonical JSON). */
  hash: boolean;
}

type Part = { head: unknown } | { path: (string | number)[]; items: unknown[] };

/** Items of one large array sent in one part. */
const ITEMS_PER_PART = 200;

const validators = new Map<string, ReturnType<typeof compileBodyValidator>>();

/** The worker side (task `json-body`): parse, validate, hash, and send the value in parts. */
export async function jsonBodyTask(
  input: JsonBodyInput,
  emit: (part: Part) => Promise<void>,
): Promise<{ fingerprint?: string }> {
  const { bytes } = input;
  const value = parseJsonBody(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  let validate = validators.get(input.schemaKey);
  if (!validate) {
    validate = compileBodyValidator(input.schema);
    validators.set(input.schemaKey, validate);
  }
  if (!validate(value)) {
    throw Object.assign(new Error('body validation'), {
      validation: validate.errors ?? [],
      validationContext: 'body',
    });
  }
  const fingerprint = input.hash ? canonicalHash(value) : undefined;
  const large: { path: (string | number)[]; items: unknown[] }[] = [];
  await emit({ head: hollow(value, [], large) });
  for (const { path, items } of large)
    for (let i = 0; i < items.length; i += ITEMS_PER_PART)
      await emit({ path, items: items.slice(i, i + ITEMS_PER_PART) });
  return fingerprint === undefined ? {} : { fingerprint };
}

/** `value` with its large arrays emptied (they follow in parts); their paths are collected. */
function hollow(
  value: unknown,
  path: (string | number)[],
  large: { path: (string | number)[]; items: unknown[] }[],
): unknown {
  if (Array.isArray(value)) {
    if (value.length > ITEMS_PER_PART) {
      large.push({ path, items: value });
      return [];
    }
    return value.map((item, i) => hollow(item, [...path, i], large));
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) out[key] = hollow(child, [...path, key], large);
    return out;
  }
  return value;
}

const fingerprints = new WeakMap<FastifyRequest, string>();

/** The canonical hash of a request's body, when its parser computed it (`hash: true`). */
export const bodyFingerprint = (request: FastifyRequest): string | undefined => fingerprints.get(request);

/**
 * Replaces the JSON parser of this plugin's routes with one that parses and validates in the
 * heavy-work pool, as a job of the caller's organization (its fair share: it may wait, or get 429
 * with Retry-After). The routes must use `bodyValidatedElsewhere()` as their validator compiler.
 */
export function registerOffLoopJsonBody(
  app: FastifyInstance,
  heavy: HeavyWork,
  options: { schemaKey: string; schema: object; hash?: boolean },
): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    async (request: FastifyRequest, body: Buffer) => {
      checkCharset(request.headers['content-type']);
      const raw = body;
      // A copy whose memory is handed to the worker (Fastify's buffer may share a pool).
      const bytes = new Uint8Array(raw);
      const aborted = new AbortController();
      const onClose = () => aborted.abort(new Error('The client went away'));
      request.socket?.once('close', onClose);
      try {
        const job = heavy.stream<Part, { fingerprint?: string }>({
          organizationId: request.caller?.organizationId ?? 'anonymous',
          task: 'json-body',
          input: { bytes, schemaKey: options.schemaKey, schema: options.schema, hash: options.hash ?? false },
          transfer: [bytes.buffer],
          // What the parsed value holds is several times its text.
          bytes: raw.length * 8,
          signal: aborted.signal,
        });
        let value: unknown;
        for await (const part of job) {
          if ('head' in part) value = part.head;
          else {
            let at: any = value;
            for (const key of part.path) at = at[key];
            for (const item of part.items) (at as unknown[]).push(item);
          }
        }
        const { fingerprint } = await job.result;
        if (fingerprint) fingerprints.set(request, fingerprint);
        return value;
      } finally {
        request.socket?.off('close', onClose);
      }
    },
  );
}
