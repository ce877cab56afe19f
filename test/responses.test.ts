import { describe, expect, it } from 'vitest';
import { API_PREFIX } from '../src/app.ts';
import { useTestApp } from './helpers/app.ts';
import { responses } from './helpers/responses.ts';

const t = useTestApp();

type Json = Record<string, any>;

/** What a schema's static type depends on: types, property names, required fields, items, unions. */
function shape(schema: Json | undefined): unknown {
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const key of ['type', 'required', 'enum', 'format']) {
    if (schema[key] !== undefined) out[key] = schema[key];
  }
  // The document writes a const as a one-value enum.
  if (schema['const'] !== undefined) out['enum'] = [schema['const']];
  if (schema['properties']) {
    out['properties'] = Object.fromEntries(
      Object.entries(schema['properties'] as Json).map(([name, value]) => [name, shape(value)]),
    );
  }
  for (const key of ['items', 'additionalProperties']) {
    if (typeof schema[key] === 'object') out[key] = shape(schema[key]);
  }
  // The document writes TypeBox's record of anything as additionalProperties.
  if (schema['patternProperties']?.['^.*$'])
    out['additionalProperties'] = shape(schema['patternProperties']['^.*$']);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    if (Array.isArray(schema[key])) out[key] = schema[key].map(shape);
  }
  return out;
}

describe('the typed responses of the tests (test/helpers/responses.ts)', () => {
  it('have the shape of the 200 schemas the routes declare in the served document', () => {
    const doc = t.app.swagger() as unknown as { paths: Record<string, Record<string, Json>> };
    for (const [key, schema] of Object.entries(responses)) {
      const [method, path] = key.split(' ') as [string, string];
      const operation = doc.paths[`${API_PREFIX}${path.replace(/:(\w+)/g, '{$1}')}`]?.[method.toLowerCase()];
      expect(operation, key).toBeDefined();
      const served = operation!['responses']['200']['content']['application/json']['schema'];
      expect(shape(served), key).toEqual(shape(JSON.parse(JSON.stringify(schema))));
    }
  });
});
