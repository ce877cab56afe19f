import fc from 'fast-check';
import { sql } from 'kysely';
import type { TestContext } from '../helpers/app.ts';

/**
 * Requests generated from the OpenAPI document: for each operation, parameters and bodies
 * built from its schemas (valid-looking values, known record ids, and junk mixed in), sent
 * with a credential of one of the roles. The checks live in the test; this file builds.
 */

export interface Operation {
  method: string;
  /** OpenAPI path, with `{param}` placeholders. */
  path: string;
  pathParams: string[];
  query: Record<string, Schema>;
  body: Schema | undefined;
}

export type Schema = Record<string, unknown> & {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
};

export interface FuzzRequest {
  method: string;
  url: string;
  role: number;
  payload: string | undefined;
  contentType: string | undefined;
}

/** Operations of the document; `skip` names `METHOD path`s that would end the credentials used. */
export function operationsOf(doc: unknown, skip: Set<string>): Operation[] {
  const paths = (doc as { paths: Record<string, Record<string, any>> }).paths;
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const key = `${method.toUpperCase()} ${path}`;
      if (skip.has(key)) continue;
      const params = (op.parameters ?? []) as { in: string; name: string; schema: Schema }[];
      const body = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      out.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: Object.fromEntries(params.filter((p) => p.in === 'query').map((p) => [p.name, p.schema])),
        body,
      });
    }
  }
  return out;
}

const tricky = fc.constantFrom(
  '',
  ' ',
  'a',
  '\u0000',
  '\ud800',
  '=1+2',
  '__proto__',
  'constructor',
  "'; drop table sites; --",
  '0x7e8',
  '1e2',
  '-1',
  '9'.repeat(40),
  'x'.repeat(300),
  '😀',
  'null',
  '2025-13-45',
  '2025-01-01T00:00:00Z',
);

/** Any JSON value, small. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 2 }),
  tricky,
  fc.constantFrom(0, -1, 1.5, 1e308, -1e308, 2 ** 53, 2 ** 31, null, true, [], {}),
);

/**
 * Values for a schema: fitting it, or (`mutate`) with junk in some places. Half of the
 * requests are built without junk, so that many get past validation.
 */
export function arbitraryOf(
  schema: Schema | undefined,
  ids: string[],
  depth = 0,
  mutate = true,
): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return junk;
  if (!mutate) return fitting(schema, ids, depth, false);
  return fc.oneof(
    { weight: 6, arbitrary: fitting(schema, ids, depth, true) },
    { weight: 1, arbitrary: junk },
  );
}

function fitting(schema: Schema, ids: string[], depth: number, mutate: boolean): fc.Arbitrary<unknown> {
  const nested = (s: Schema | undefined, i: string[], d: number) => arbitraryOf(s, i, d, mutate);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches?.length) return fc.oneof(...branches.map((b) => nested(b, ids, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'uuid')
        return ids.length ? fc.oneof(fc.constantFrom(...ids), fc.uuid()) : fc.uuid();
      if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      return fc.oneof(
        fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 20, 20) }),
        ids.length ? fc.constantFrom(...ids) : fc.constant('x'),
        mutate ? tricky : fc.constant('Fuzz text'),
      );
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? -10, -1e6),
        max: Math.min(schema.maximum ?? 3000, 1e6),
      });
    case 'number':
      return fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer({ min: -100, max: 3000 }),
      );
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(nested(schema.items, ids, depth + 1), { maxLength: 3 });
    case 'object': {
      const properties = schema.properties ?? {};
      const keys = Object.keys(properties);
      if (keys.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), junk, { maxKeys: 3 });
      const record = fc.record(
        Object.fromEntries(keys.map((k) => [k, byName(k, ids) ?? nested(properties[k], ids, depth + 1)])),
        { requiredKeys: (schema.required ?? []).filter((k) => keys.includes(k)) },
      );
      if (!mutate) return record;
      // Sometimes a property the schema does not know.
      return fc.oneof(
        { weight: 5, arbitrary: record },
        { weight: 1, arbitrary: fc.tuple(record, junk).map(([r, j]) => ({ ...(r as object), extra: j })) },
      );
    }
    default:
      return junk;
  }
}

/** Values that fit a field by its name more often than its schema alone would (ids, years, periods). */
function byName(name: string, ids: string[]): fc.Arbitrary<unknown> | undefined {
  if (/Ids?$/.test(name) && name !== 'organizationIds' && ids.length) {
    const id = fc.constantFrom(...ids);
    return name.endsWith('Ids')
      ? fc.array(id, { maxLength: 3 })
      : fc.oneof({ weight: 4, arbitrary: id }, fc.uuid());
  }
  if (name === 'year' || name === 'years') return fc.constantFrom(2024, 2025, 2026);
  if (name === 'periodUnit') return fc.integer({ min: 1, max: 13 });
  return undefined;
}

/** A value once in `n` requests, else null. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: n - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });

/** A request for one operation: path ids (known or not), query, body, and a role index. */
export function requestOf(op: Operation, ids: string[], roles: number): fc.Arbitrary<FuzzRequest> {
  const pathValue = fc.oneof(
    { weight: 4, arbitrary: ids.length ? fc.constantFrom(...ids) : fc.uuid() },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: tricky.filter((s) => s.length > 0) },
  );
  const queryEntries = Object.entries(op.query);
  const queryOf = (mutate: boolean) =>
    fc.record(
      Object.fromEntries(queryEntries.map(([name, schema]) => [name, arbitraryOf(schema, ids, 0, mutate)])),
      { requiredKeys: [] },
    );
  const query = fc.oneof(queryOf(false), queryOf(true));
  return fc
    .record({
      path: fc.array(pathValue, { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
      query,
      unknownQuery: rarely(fc.constantFrom('foo', 'limit', 'datasetId'), 10),
      body: op.body
        ? fc.oneof(arbitraryOf(op.body, ids, 0, false), arbitraryOf(op.body, ids, 0, true))
        : fc.constant(undefined),
      rawBody: rarely(fc.constantFrom('{', '[1,', '"x"', '{"a":1e400}', '\u0000', ''), 15),
      role: fc.integer({ min: 0, max: roles - 1 }),
    })
    .map(({ path, query, unknownQuery, body, rawBody, role }) => {
      let url = op.path;
      op.pathParams.forEach((name, i) => {
        // A lone surrogate cannot be percent-encoded: sent as U+FFFD, as a client would.
        url = url.replace(`{${name}}`, encodeURIComponent(path[i]!.replace(/\p{Surrogate}/gu, '\ufffd')));
      });
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
        if (value === undefined) continue;
        search.append(name, typeof value === 'string' ? value : JSON.stringify(value));
      }
      if (unknownQuery) search.append(unknownQuery, '1');
      const qs = search.toString();
      const payload = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
      return {
        method: op.method,
        url: qs ? `${url}?${qs}` : url,
        role,
        payload,
        contentType: payload === undefined ? undefined : 'application/json',
      };
    });
}

/** The tenant tables of a test database, read once: the schema does not change during a run. */
const tenantTables = new WeakMap<TestContext['database'], Promise<string[]>>();

/** A fingerprint of every tenant table (rows with an organization_id): equal before and after = no write. */
export async function tenantSnapshot(t: TestContext, exclude: Set<string>): Promise<Record<string, string>> {
  let listed = tenantTables.get(t.database);
  if (!listed) {
    listed = t.database.system(async (tx) => {
      const tables = await sql<{ table_name: string }>`
        select c.table_name from information_schema.columns c
          join information_schema.tables t on t.table_name = c.table_name and t.table_schema = c.table_schema
         where c.table_schema = 'public' and c.column_name = 'organization_id' and t.table_type = 'BASE TABLE'
         order by c.table_name`.execute(tx);
      return tables.rows.map((r) => r.table_name);
    });
    tenantTables.set(t.database, listed);
  }
  const all = await listed;
  return t.database.system(async (tx) => {
    const names = all.filter((n) => !exclude.has(n));
    const parts = names.map(
      (
        n,
      ) => sql`select ${n}::text as name, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as hash
                   from ${sql.table(n)} x`,
    );
    const union = parts.reduce((a, b) => sql`${a} union all ${b}`);
    const rows = await sql<{ name: string; hash: string }>`${union}`.execute(tx);
    return Object.fromEntries(rows.rows.map((r) => [r.name, r.hash]));
  });
}
