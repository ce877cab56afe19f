import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fastJson from 'fast-json-stringify';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
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
    // Errors carry their schema, so that `plainErrors` can say what a field expects.
    verbose: true,
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
 * A body validator as the service's own (same Ajv options, same errors), for a body validated
 * elsewhere than in Fastify's validation step (a worker thread: src/http/heavy-body.ts).
 */
export function compileBodyValidator(schema: object): Validate {
  const ajv = makeAjv(false);
  return lazily(() => ajv.compile(schema) as Validate);
}

/**
 * A route's validator compiler for a route whose body was parsed and validated already (off the
 * request loop, by its content-type parser): the body passes, the other parts are validated as
 * every route's are.
 */
export function bodyValidatedElsewhere(): FastifySchemaCompiler<unknown> {
  const textAjv = makeAjv('array');
  const pass: Validate = () => true;
  return ({ schema, httpPart }) =>
    httpPart === 'body' ? pass : lazily(() => textAjv.compile(schema as object) as Validate);
}

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
    // The values themselves (`data` of verbose errors) leave here only as their kind, so that
    // no password or other input can reach a log through the error.
    wrapper.errors = validate.errors?.map((error) => {
      const { data: value, ...rest } = error as typeof error & { data?: unknown };
      return { ...rest, dataKind: kindOf(value) };
    });
    return ok;
  };
  return wrapper;
}

/** An Ajv error as `verbose: true` reports it. */
export interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  message?: string;
  params?: Record<string, unknown>;
  schema?: unknown;
  parentSchema?: Record<string, unknown>;
  /** What the invalid value is: `object`, `array`, `null`, `string`, … (see `lazily`). */
  dataKind?: string;
}

const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

type Schema = Record<string, unknown>;

/**
 * One error per invalid field. Ajv reports a value that fits no branch of a union
 * (`anyOf`/`oneOf`, which is how nullable fields are written) once per branch plus once for
 * the union: `"unitId": "m3"` gave `must match format "uuid"`, `must be null` and
 * `must match a schema in anyOf`. These become one error naming what is expected
 * (`must be a unit id or null`). When the value is an object that has the shape of one
 * branch (the other errors are inside it, or are shared by every branch such as a missing
 * `year`), that branch's own errors are kept instead, as they are more precise.
 * A type list (`type: ["number", "null"]`) is said in words too (`must be a number or null`).
 */
export function plainErrors(errors: AjvError[]): AjvError[] {
  const unions = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  let out = errors;
  for (const union of unions) {
    if (!out.includes(union)) continue; // inside a branch already replaced
    // The same union checks every item of a list: its errors are those of this item.
    const within = (e: AjvError) =>
      e !== union &&
      e.schemaPath.startsWith(`${union.schemaPath}/`) &&
      (e.instancePath === union.instancePath || e.instancePath.startsWith(`${union.instancePath}/`));
    const inside = out.filter(within);
    const resolved = resolveUnion(union, inside);
    // The resolved errors take the union's place (Ajv reports it after its branches).
    out = out.flatMap((e) => (e === union ? resolved : within(e) ? [] : [e]));
  }
  const seen = new Set<string>();
  return out
    .map((e) => {
      if (e.keyword === 'type' && Array.isArray(e.params?.['type'])) return typeListError(e);
      if (e.keyword === 'format' && e.params?.['format'] === 'uuid') {
        return { ...e, message: `must be a ${idNoun(e.instancePath)}` };
      }
      return e;
    })
    .filter((e) => {
      const key = `${e.instancePath} ${e.keyword} ${e.message} ${JSON.stringify(e.params ?? {})}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

function resolveUnion(union: AjvError, inside: AjvError[]): AjvError[] {
  const branches = Array.isArray(union.schema) ? (union.schema as Schema[]) : [];
  // Both alternatives given where exactly one is allowed.
  if (union.keyword === 'oneOf' && Array.isArray(union.params?.['passingSchemas'])) {
    const alternatives = expected(branches, union.instancePath, union.parentSchema).replace(/^be /, '');
    return [{ ...union, message: `must match only one of: ${alternatives}` }];
  }
  const byBranch = branches.map((_, i) =>
    inside.filter((e) => e.schemaPath.startsWith(`${union.schemaPath}/${i}/`)),
  );
  const atUnion = (e: AjvError) => e.instancePath === union.instancePath;
  const signature = (e: AjvError) => `${e.keyword} ${JSON.stringify(e.params ?? {})}`;
  const kind = union.dataKind ?? kindOf((union as { data?: unknown }).data);
  if ((kind === 'object' || kind === 'array') && byBranch.length > 0) {
    let best = 0;
    const score = (list: AjvError[]) => list.filter(atUnion).length * 1000 + list.length;
    byBranch.forEach((list, i) => {
      if (score(list) < score(byBranch[best]!)) best = i;
    });
    const chosen = byBranch[best]!;
    const shared = (e: AjvError) =>
      byBranch.every((list) => list.some((o) => atUnion(o) && signature(o) === signature(e)));
    const own = chosen.filter((e) => atUnion(e) && !shared(e));
    // A list whose items are of the wrong type at all is said as a whole (`options: ["a"]`).
    const wrongItems = kind === 'array' && chosen.some((e) => e.keyword === 'type' && isChildOf(e, union));
    // The object fits one branch better than any other (`formMetadataKey` without its value),
    // or only lacks fields (those of the first closest branch are named): its errors say more.
    const closest = byBranch.every((list, i) => i === best || score(list) > score(chosen));
    const onlyMissing = own.length > 0 && own.every((e) => e.keyword === 'required');
    if (!wrongItems && (own.length === 0 || closest || onlyMissing)) return plainErrors(chosen);
  }
  return [
    {
      instancePath: union.instancePath,
      schemaPath: union.schemaPath,
      keyword: union.keyword,
      params: {},
      message: `must ${expected(branches, union.instancePath, union.parentSchema)}`,
    },
  ];
}

function isChildOf(e: AjvError, parent: AjvError): boolean {
  const rest = e.instancePath.slice(parent.instancePath.length);
  return e.instancePath.startsWith(`${parent.instancePath}/`) && /^\/\d+$/.test(rest);
}

function typeListError(e: AjvError): AjvError {
  const types = e.params!['type'] as string[];
  const words = types.map((type) => describe({ type }, e.instancePath));
  return { ...e, params: { type: types.join(',') }, message: `must be ${joinOr(words)}` };
}

/**
 * What a union expects, after "must": `be a unit id or null`. A union may say it in its own
 * words with `x-expected` (`name the form one way only: …`).
 */
function expected(branches: Schema[], instancePath: string, parent?: Schema): string {
  const given = parent?.['x-expected'];
  if (typeof given === 'string') return given;
  return `be ${joinOr([...new Set(branches.map((b) => describe(b, instancePath)))])}`;
}

function joinOr(words: string[]): string {
  if (words.length <= 1) return words[0] ?? 'valid';
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** `unitId` -> `unit id`, `activityDefinitionId` -> `activity definition id`. */
function idNoun(instancePath: string): string {
  const name =
    instancePath
      .split('/')
      .filter((s) => s && !/^\d+$/.test(s))
      .pop() ?? '';
  if (/^[a-z]\w*Id$/.test(name) && name.length > 2) {
    return `${name
      .slice(0, -2)
      .replace(/([A-Z])/g, ' $1')
      .toLowerCase()} id`;
  }
  return 'id (UUID)';
}

/** A schema in a few words: `a number`, `a list of {label, value}`, `one of YEARLY, MONTHLY`. */
function describe(schema: Schema, instancePath: string): string {
  if ('const' in schema) return JSON.stringify(schema['const']);
  if (Array.isArray(schema['enum'])) return `one of ${(schema['enum'] as unknown[]).join(', ')}`;
  const union = (schema['anyOf'] ?? schema['oneOf']) as Schema[] | undefined;
  if (Array.isArray(union)) return joinOr(union.map((b) => describe(b, instancePath)));
  const type = schema['type'];
  if (Array.isArray(type)) return joinOr(type.map((t) => describe({ ...schema, type: t }, instancePath)));
  switch (type) {
    case 'null':
      return 'null';
    case 'string':
      if (schema['format'] === 'uuid') return `a ${idNoun(instancePath)}`;
      if (schema['format'] === 'date-time') return 'an ISO 8601 date-time';
      if (schema['format'] === 'date') return 'an ISO 8601 date';
      if (schema['format'] === 'email') return 'an e-mail address';
      return 'a text';
    case 'number':
      return 'a number';
    case 'integer':
      return 'an integer';
    case 'boolean':
      return 'true or false';
    case 'array': {
      const items = schema['items'] as Schema | undefined;
      return items ? `a list of ${plural(items, instancePath)}` : 'a list';
    }
    case 'object': {
      const properties = Object.keys((schema['properties'] as Schema | undefined) ?? {});
      return properties.length ? `an object {${properties.join(', ')}}` : 'an object';
    }
  }
  return 'valid';
}

function plural(items: Schema, instancePath: string): string {
  if (items['type'] === 'object') {
    const properties = Object.keys((items['properties'] as Schema | undefined) ?? {});
    return properties.length ? `objects {${properties.join(', ')}}` : 'objects';
  }
  if (items['type'] === 'string' && items['format'] === 'uuid')
    return `${idNoun(instancePath).replace(/ id$/, '')} ids`;
  if (items['type'] === 'string') return 'texts';
  if (items['type'] === 'number' || items['type'] === 'integer') return 'numbers';
  return 'values';
}
