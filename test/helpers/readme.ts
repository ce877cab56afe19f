import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

// What the README tests share: the README's shell blocks, and the real service (the bundle that
// `npm start` runs, on a fresh embedded database) that they run against.
const ROOT = join(import.meta.dirname, '..', '..');
export const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The sh block between `<!-- name:start -->` and `<!-- name:end -->`. */
export const marked = (name: string) =>
  new RegExp(`<!-- ${name}:start -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`).exec(
    readme,
  )?.[1];

/** The first sh block under a heading. */
export const under = (heading: string) => {
  const at = readme.indexOf(`\n${heading}\n`);
  return at < 0 ? undefined : /```sh\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
};

/** The tools of a list that this machine lacks (the README's examples need them). */
export const missingTools = (tools: string[]) =>
  tools.filter((tool) => spawnSync('which', [tool]).status !== 0);

/**
 * Starts the service on a fresh data directory before the file's tests (unless `skip`) and stops
 * it after them; `api` and `key` (the first-start API key) are set once it listens.
 */
export function readmeService(skip: boolean, options: { publicUrl?: boolean } = {}) {
  const service = { api: '', key: '', dataDir: mkdtempSync(join(tmpdir(), 'sdcs-readme-')) };
  let stop = () => {};
  beforeAll(async () => {
    if (skip) return;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SDCS_DATA_DIR: service.dataDir,
      PORT: '0',
      LOG_FORMAT: 'json',
    };
    delete env['DATABASE_URL'];
    if (options.publicUrl) {
      // Upload URLs name the public address: a real port, known before the start.
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const { port } = probe.address() as AddressInfo;
      await new Promise((resolve) => probe.close(resolve));
      env['PORT'] = String(port);
      env['PUBLIC_URL'] = `http://127.0.0.1:${port}`;
    }
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'sdcs.mjs'), 'serve'], { env });
    stop = () => {
      child.removeAllListeners('exit');
      child.kill('SIGTERM');
    };
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const onData = (d: Buffer) => {
        out += d;
        const base = /SDCS listening on (http:\/\/[^\s]+) /.exec(out)?.[1];
        const bearer = /Bearer (sdcs_\w+)/.exec(out)?.[1];
        if (base && bearer) {
          service.api = `${base}/api/v1`;
          service.key = bearer;
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.on('exit', (code) => reject(new Error(`the service exited with ${code}: ${out}`)));
    });
  }, 120_000);
  afterAll(() => stop());
  return service;
}
