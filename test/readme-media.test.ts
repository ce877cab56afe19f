import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { openTestDatabase, testConfig } from './helpers/app.ts';
import { createTenant } from './helpers/factories.ts';

// The README's upload example, run as written with curl against the service listening on loopback.
const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
const scenario = /<!-- media-scenario:start -->\s*```sh\n([\s\S]*?)```\s*<!-- media-scenario:end -->/.exec(
  readme,
)?.[1];
const tools = ['curl', 'jq', 'bash', 'cmp'].filter((tool) => spawnSync('which', [tool]).status !== 0);

const CALL = `call() { curl -sS --fail-with-body -X "$1" "$API$2" -H "Authorization: Bearer $KEY" \\
  -H 'content-type: application/json' \${3:+--data "$3"}; }`;

let app: FastifyInstance;
let drop: () => Promise<void>;
let port = 0;
let key = '';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  const opened = await openTestDatabase();
  drop = opened.drop;
  port = await freePort();
  const config = testConfig({
    publicUrl: `http://127.0.0.1:${port}`,
    dataDir: `/tmp/sdcs-readme-media-${randomBytes(4).toString('hex')}`,
  });
  app = await buildApp({ database: opened.database, config });
  await app.listen({ port, host: '127.0.0.1' });
  key = (await createTenant({ app, database: opened.database, config })).apiKey;
});
afterAll(async () => {
  await app?.close();
  await drop?.();
});

describe('the README’s upload example', () => {
  it('is in the README', () => expect(scenario).toBeDefined());

  it.skipIf(tools.length > 0)(
    'runs as written: upload with curl -F, attach, download the same bytes',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sdcs-readme-media-'));
      writeFileSync(join(dir, 'invoice.pdf'), '%PDF-1.4\n% an invoice\n1 0 obj << >> endobj\n%%EOF\n');
      // Asynchronously: the service answering curl runs in this process.
      const child = spawn('bash', ['-euo', 'pipefail', '-c', `${CALL}\n${scenario}`], {
        cwd: dir,
        env: { ...process.env, API: `http://127.0.0.1:${port}/api/v1`, KEY: key },
      });
      const run = { stdout: '', stderr: '', status: -1 as number | null };
      child.stdout.on('data', (d) => (run.stdout += d));
      child.stderr.on('data', (d) => (run.stderr += d));
      run.status = await new Promise((resolve) => child.on('close', resolve));
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toContain('<Key>org/');
      expect(run.stdout).toMatch(/\{"status":"uploaded","size":\d+,"sha256":"[0-9a-f]{64}"\}/);
      expect(run.stdout).toContain('same bytes');
    },
  );
});
