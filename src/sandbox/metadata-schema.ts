import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; its default export arrives wrapped under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/** Thrown when a metadataSchema is not a usable JSON Schema. */
export class MetadataSchemaError extends Error {
  override name = 'MetadataSchemaError';
}

const MAX_SCHEMA_CHARS = 64 * 1024;
const MAX_SCHEMA_DEPTH = 32;
const CACHE_SIZE = 200;

// Schemas come from users: never add them to the instance by $id, never coerce or default data.
const ajv = new Ajv({ allErrors: true, strict: false, addUsedSchema: false });
addFormats(ajv);

// Ajv caches compiled schemas by object identity, and every schema read from the database is a
// new object: keep our own bounded cache by content and remove evicted schemas from Ajv's.
const compiled = new Map<string, ValidateFunction>();

function depthOf(value: unknown, depth = 0): number {
  if (depth > MAX_SCHEMA_DEPTH || value === null || typeof value !== 'object') return depth;
  let deepest = depth;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child, depth + 1));
  return deepest;
}

/**
 * A validator for a metadataSchema, compiled once per distinct schema. Throws
 * MetadataSchemaError when the schema is not a valid JSON Schema (or too large or deep).
 */
export function compileMetadataSchema(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = compiled.get(key);
  if (hit) {
    compiled.delete(key);
    compiled.set(key, hit);
    return hit;
  }
  if (key.length > MAX_SCHEMA_CHARS) {
    throw new MetadataSchemaError(`is larger than ${MAX_SCHEMA_CHARS} characters of JSON`);
  }
  if (depthOf(schema) > MAX_SCHEMA_DEPTH) {
    throw new MetadataSchemaError(`is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    ajv.removeSchema(schema);
    throw new MetadataSchemaError(`is not a valid JSON Schema: ${(error as Error).message}`);
  }
  if ((validate as { $async?: unknown }).$async) {
    ajv.removeSchema(schema);
    throw new MetadataSchemaError('must not be asynchronous ($async)');
  }
  compiled.set(key, validate);
  if (compiled.size > CACHE_SIZE) {
    const [oldest, evicted] = compiled.entries().next().value as [string, ValidateFunction];
    compiled.delete(oldest);
    ajv.removeSchema(evicted.schema as object);
  }
  return validate;
}

/** Why `schema` cannot be used as a metadataSchema, or null when it can. */
export function metadataSchemaProblem(schema: Record<string, unknown>): string | null {
  try {
    compileMetadataSchema(schema);
    return null;
  } catch (error) {
    if (error instanceof MetadataSchemaError) return error.message;
    throw error;
  }
}

/** Ajv's findings as one line, naming the data `metadata`. */
export function metadataErrorsText(errors: ErrorObject[] | null | undefined): string {
  return ajv.errorsText(errors, { dataVar: 'metadata' });
}
