import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { badRequest, type Issue } from '../domain/errors.ts';

type Schema = Record<string, unknown> & {
  type?: unknown;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

const NO_PARAMETERS: Schema = { type: 'object', properties: {}, additionalProperties: false };

/**
 * Query strings are strict on every API route, in this one place: a parameter the route does
 * not declare is a 400 naming it (a typo such as `?datasetid=` must not silently widen a list),
 * and numbers are written in plain decimal (`0x7e8`, `2024.0`, `+5`, `1e2` are refused; the
 * validator alone would coerce them). Must run before routes are added.
 */
export function registerStrictQueries(app: FastifyInstance, prefix: string): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.url.startsWith(prefix)) return;
    route.schema ??= {};
    const schema = route.schema;
    const given = schema.querystring as Schema | undefined;
    const query: Schema = given ? { ...given, additionalProperties: false } : NO_PARAMETERS;
    schema.querystring = query;
    const numeric = numericParameters(query);
    const lists = listParameters(query);
    if (numeric.size === 0 && lists.length === 0) return;
    const check = async (request: FastifyRequest) => {
      splitLists(request, lists);
      checkNumbers(request, numeric);
    };
    route.preValidation = [...asArray(route.preValidation), check] as RouteOptions['preValidation'];
  });
}

/** The declared parameters that are lists. */
const listParameters = (query: Schema) =>
  Object.entries(query.properties ?? {})
    .filter(([, property]) => property.type === 'array')
    .map(([name]) => name);

/**
 * A list parameter may be sent repeated (`?years=2024&years=2025`), comma-separated
 * (`?years=2024,2025`) or both: made one list of trimmed items before validation, which then
 * checks each item against the declared item type (integers for years and periods).
 */
function splitLists(request: FastifyRequest, lists: string[]): void {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query) return;
  for (const name of lists) {
    const raw = query[name];
    if (raw === undefined) continue;
    const values = Array.isArray(raw) ? raw : [raw];
    if (!values.some((v) => typeof v === 'string' && v.includes(','))) continue;
    query[name] = values.flatMap((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()) : [v]));
  }
}

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** The declared parameters that hold numbers: name -> integer only? */
function numericParameters(query: Schema): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const [name, property] of Object.entries(query.properties ?? {})) {
    const kind = numberKind(property);
    if (kind) out.set(name, kind === 'integer');
  }
  return out;
}

function numberKind(schema: Schema | undefined): 'integer' | 'number' | undefined {
  if (!schema) return undefined;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'number';
  if (types.includes('array')) return numberKind(schema.items);
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    const kind = numberKind(branch);
    if (kind) return kind;
  }
  return undefined;
}

const INTEGER = /^-?\d{1,16}$/;
const DECIMAL = /^-?\d{1,16}(\.\d{1,16})?$/;

function checkNumbers(request: FastifyRequest, numeric: Map<string, boolean>): void {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query) return;
  const issues: Issue[] = [];
  for (const [name, integerOnly] of numeric) {
    const raw = query[name];
    if (raw === undefined) continue;
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      if (typeof value !== 'string') continue;
      if (!(integerOnly ? INTEGER : DECIMAL).test(value)) {
        const path = `query.${name}`;
        issues.push({
          path,
          message: `${path} must be ${integerOnly ? 'an integer' : 'a number'} in plain decimal digits, got "${value.slice(0, 50)}"`,
        });
        break;
      }
    }
  }
  if (issues.length > 0) throw badRequest('Invalid input data', issues);
}
