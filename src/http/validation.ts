import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fastJson from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';
import type { FastifyValidationResult } from 'fastify/types/schema.js';

// ajv-formats is CommonJS; its default export arrives wrapped under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerceTypes: false | 'array'): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

/**
 * Response bodies are serialized by the route's response schema (which also keeps
 * undeclared fields, such as hashes, out of them), compiled on first use like validators.
 *
 * Bodies are validated as sent: no coercion (`"3"` is not a number) and no silent
 * removal of unknown properties. Query strings, path parameters and headers arrive as
 * text, so they are coerced to the declared types (and single values to arrays).
 */
export function registerValidation(app: FastifyInstance): void {
  const bodyAjv = makeAjv(false);
  const textAjv = makeAjv('array');
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? bodyAjv : textAjv;
    return lazily(() => ajv.compile(schema as object) as Validate);
  });
  app.setSerializerCompiler(({ schema }) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => {
      serialize ??= fastJson(schema as Parameters<typeof fastJson>[0]);
      return serialize(data);
    };
  });
}

type Validate = FastifyValidationResult;

/**
 * Compiles a route's validator on its first use instead of at start-up: compiling the
 * schemas of every route up front was about a third of the start-up time. Fastify reads
 * `errors` from the function it was given, so the wrapper passes them on.
 */
function lazily(compile: () => Validate): Validate {
  let validate: Validate | undefined;
  const wrapper: Validate = (data: unknown) => {
    validate ??= compile();
    const ok = validate(data);
    wrapper.errors = validate.errors;
    return ok;
  };
  return wrapper;
}
