/**
 * Writes the service's OpenAPI document (as /openapi.json serves it) to a file, without a
 * database: `npx tsx scripts/openapi-document.ts <file>`. CI lints it with Spectral.
 */
import { writeFile } from 'node:fs/promises';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import type { Database } from '../src/db/client.ts';

const file = process.argv[2] ?? 'test-output/openapi.json';
// The document as a deployment serves it: behind HTTPS (PUBLIC_URL), else an example address.
const config = loadConfig({
  SDCS_SECRET: 'openapi-document-openapi-document-0123',
  SDCS_BOOTSTRAP: 'false',
  PUBLIC_URL: process.env['PUBLIC_URL'] ?? 'https://sdcs.example.org',
});
// Building the app touches no database: the document comes from the routes alone.
const app = await buildApp({ database: undefined as unknown as Database, config });
await app.ready();
await writeFile(file, JSON.stringify(app.swagger(), null, 2));
await app.close();
console.log(`OpenAPI document written to ${file}`);
