import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; its default export arrives wrapped under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

type Json = Record<string, any>;

/** Headers of HTTP itself, which no operation needs to declare. */
const TRANSPORT_HEADERS = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

export interface CheckedResponse {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/**
 * Checks answers against the served OpenAPI document: the status is one the operation declares,
 * the content type one of that response's media types (no body when it declares none), a JSON
 * body valid against its schema, and every header (beyond HTTP's own) declared. Answers the
 * problems found, empty when the answer is in the document.
 */
export function documentChecker(served: Json) {
  const doc = dereferenced(served);
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  const validators = new Map<object, ValidateFunction>();
  const templates = Object.keys(doc['paths']).map((path) => ({
    path,
    pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    params: (path.match(/\{/g) ?? []).length,
  }));

  function operationOf(method: string, url: string): { path: string; op: Json } | undefined {
    const path = decodeURI(url.split('?')[0]!);
    const found = templates
      .filter((t) => t.pattern.test(path) && doc['paths'][t.path][method.toLowerCase()])
      .sort((a, b) => a.params - b.params)[0];
    return found ? { path: found.path, op: doc['paths'][found.path][method.toLowerCase()] } : undefined;
  }

  return function check(method: string, url: string, res: CheckedResponse): string[] {
    const found = operationOf(method, url);
    if (!found) return [`${method} ${url}: no such operation in the document`];
    const where = `${method} ${found.path} ${res.statusCode}`;
    const responses = found.op['responses'] as Json;
    const response =
      responses[String(res.statusCode)] ??
      responses[`${String(res.statusCode)[0]}XX`] ??
      responses['default'];
    if (!response) return [`${where}: status not declared (declared: ${Object.keys(responses).join(', ')})`];
    const problems: string[] = [];
    const declaredHeaders = new Set(Object.keys(response['headers'] ?? {}).map((h) => h.toLowerCase()));
    for (const header of Object.keys(res.headers)) {
      const name = header.toLowerCase();
      if (!TRANSPORT_HEADERS.has(name) && !declaredHeaders.has(name))
        problems.push(`${where}: header ${name} not declared`);
    }
    const content = response['content'] as Json | undefined;
    if (res.body.length === 0) {
      return problems;
    }
    if (!content) return [...problems, `${where}: a body where the document declares none`];
    const type = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    const media = content[type] ?? content['*/*'];
    if (!media)
      return [
        ...problems,
        `${where}: content type ${type} not declared (${Object.keys(content).join(', ')})`,
      ];
    if (type === 'application/json' && media['schema']) {
      let validate = validators.get(media['schema']);
      if (!validate) {
        validate = ajv.compile(media['schema']);
        validators.set(media['schema'], validate);
      }
      if (!validate(JSON.parse(res.body))) {
        problems.push(
          `${where}: body outside the schema: ${ajv.errorsText(validate.errors)} in ${res.body.slice(0, 300)}`,
        );
      }
    }
    return problems;
  };
}

/**
 * The document with every local `$ref` (`#/components/...`) replaced by what it points to, as a
 * client resolves it: the served document states shared headers, error bodies and error answers
 * once. Objects referred to more than once are shared, not copied.
 */
export function dereferenced<T>(doc: T): T {
  const root = doc as Json;
  const resolve = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<any>((node, part) => {
        if (node?.[part] === undefined) throw new Error(`unresolved $ref ${ref}`);
        return node[part];
      }, root);
  const done = new Map<unknown, unknown>();
  const walk = (node: unknown): unknown => {
    if (typeof node !== 'object' || node === null) return node;
    if (done.has(node)) return done.get(node);
    const ref = (node as Json)['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#/')) return walk(resolve(ref));
    const out: any = Array.isArray(node) ? [] : {};
    done.set(node, out);
    for (const [key, value] of Object.entries(node)) out[key] = walk(value);
    return out;
  };
  return walk(root) as T;
}
