import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import type { Database } from '../src/db/client.ts';

// Every header object of the document is a valid OpenAPI 3.1 header (issue 48): a `schema` (or a
// `content`), never a schema nested in a schema, as a `{schema: {type}}` given where a schema was
// expected once produced.
let doc: Record<string, any>;
let close: () => Promise<void>;

beforeAll(async () => {
  const config = loadConfig({ SDCS_SECRET: 'openapi-headers-openapi-headers-0123', SDCS_BOOTSTRAP: 'false' });
  const app = await buildApp({ database: undefined as unknown as Database, config });
  await app.ready();
  doc = app.swagger() as Record<string, any>;
  close = () => app.close();
});
afterAll(() => close());

function headerProblems(where: string, headers: Record<string, any> | undefined): string[] {
  const problems: string[] = [];
  for (const [name, header] of Object.entries(headers ?? {})) {
    const h = header.$ref ? doc['components'].headers[header.$ref.split('/').pop()] : header;
    const at = `${where} header ${name}`;
    if (!h) problems.push(`${at}: dangling $ref`);
    else if (!h.schema && !h.content) problems.push(`${at}: neither schema nor content`);
    else if (h.schema && 'schema' in h.schema) problems.push(`${at}: a schema inside the schema`);
    else if (h.schema && !h.schema.type && !h.schema.$ref && !h.schema.anyOf && !h.schema.enum)
      problems.push(`${at}: a schema without a type`);
  }
  return problems;
}

describe('the OpenAPI document’s header objects', () => {
  it('every response header, shared or per operation, is a header object with one schema', () => {
    const problems: string[] = [];
    for (const [name, header] of Object.entries(doc['components']?.headers ?? {}))
      problems.push(...headerProblems('components', { [name]: header }));
    for (const [name, response] of Object.entries(doc['components']?.responses ?? {}))
      problems.push(...headerProblems(`components response ${name}`, (response as any).headers));
    let counted = 0;
    for (const [path, item] of Object.entries(doc['paths'] as Record<string, any>)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries((operation as any).responses ?? {})) {
          const headers = (response as any).headers;
          counted += Object.keys(headers ?? {}).length;
          problems.push(...headerProblems(`${method.toUpperCase()} ${path} ${status}`, headers));
        }
      }
    }
    expect(counted).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  });

  it('finds a schema nested in a schema', () => {
    expect(headerProblems('x', { a: { schema: { schema: { type: 'string' } } } })).toEqual([
      'x header a: a schema inside the schema',
    ]);
  });
});
