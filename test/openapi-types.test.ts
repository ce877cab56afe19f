import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiTypes } from './helpers/api-types.ts';

// The browser's code calls the API through types generated from the OpenAPI document
// (src/api-types/openapi.d.ts, checked in so that `tsc -p tsconfig.client.json` needs no service).
// A route whose schema changed without the file being generated again fails here, and so in CI.
describe('the API types of the browser code', () => {
  it('are the types of the document the routes declare (npx tsx scripts/openapi-types.ts)', async () => {
    const file = join(import.meta.dirname, '..', 'src', 'api-types', 'openapi.d.ts');
    expect(await readFile(file, 'utf8')).toBe(await apiTypes());
  }, 120_000);
});
