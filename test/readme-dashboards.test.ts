import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The README's dashboards walk-through, run as a reader following the README from the top gets
// there: the worked example, the indicators and targets block, the spreadsheet import, then the
// dashboards block (the completeness part only reads, reminds and locks: no figure changes). Every
// `# {…}` answer the README shows under the dashboards block must be what the service prints.
const ROOT = join(import.meta.dirname, '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const marked = (name: string) =>
  new RegExp(`<!-- ${name}:start -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`).exec(
    readme,
  )?.[1];
/** The first sh block under a heading. */
const under = (heading: string) => {
  const at = readme.indexOf(`\n${heading}\n`);
  return at < 0 ? undefined : /```sh\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
};
const blocks = {
  scenario: marked('scenario'),
  indicators: under('### Indicators and targets'),
  imports: marked('scenario-imports'),
  dashboards: marked('scenario-dashboards'),
};
const tools = ['curl', 'jq', 'bash', 'grep'].filter((tool) => spawnSync('which', [tool]).status !== 0);

let server: ChildProcess | undefined;
let api = '';
let key = '';
const dataDir = mkdtempSync(join(tmpdir(), 'sdcs-readme-dashboards-'));

beforeAll(async () => {
  if (tools.length > 0) return;
  const env: NodeJS.ProcessEnv = { ...process.env, SDCS_DATA_DIR: dataDir, PORT: '0', LOG_FORMAT: 'json' };
  delete env['DATABASE_URL'];
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'sdcs.mjs'), 'serve'], { env });
  server = child;
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const base = /SDCS listening on (http:\/\/[^\s]+) /.exec(out)?.[1];
      const bearer = /Bearer (sdcs_\w+)/.exec(out)?.[1];
      if (base && bearer) {
        api = `${base}/api/v1`;
        key = bearer;
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`the service exited with ${code}: ${out}`)));
  });
}, 120_000);

afterAll(() => {
  server?.removeAllListeners('exit');
  server?.kill('SIGTERM');
});

describe('the README’s dashboards walk-through', () => {
  it('has its blocks', () => {
    for (const [name, block] of Object.entries(blocks)) expect(block, name).toBeDefined();
  });

  it.skipIf(tools.length > 0)(
    'prints what the README says it prints',
    () => {
      const script = [blocks.scenario, blocks.indicators, blocks.imports, blocks.dashboards].join('\n');
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
        env: { ...process.env, API: api, KEY: key, SDCS_DATA_DIR: dataDir },
        encoding: 'utf8',
        timeout: 90_000,
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const lines = run.stdout.trim().split('\n');
      // Every JSON answer shown as a comment under the dashboards block is printed as shown.
      const shown = [...blocks.dashboards!.matchAll(/^# (\{.*\})$/gm)].map((m) => m[1]!);
      expect(shown.length).toBeGreaterThanOrEqual(3);
      for (const line of shown) expect(lines, run.stdout.split('\n').slice(-12).join('\n')).toContain(line);
      // 1,200 + 1,000 + 50 kWh = 2,250 kWh × 0.4 kgCO2e/kWh = 900 kgCO2e: 0.9 tCO2e; the 1.2 tCO2e
      // budget split over 12 months: 0.1 a month.
      expect(lines).toContain('{"period":"total","label":"2024","value":0.9,"formatted":"0.9 tCO2e"}');
      expect(lines).toContain('{"period":"2024-01","label":"Jan 2024","value":0.1,"formatted":"0.1 tCO2e"}');
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^"Target “Halve scope 2”: its percentage entries are relative to Scope 2 in 2019, which has no value here,/,
        ),
      );
      expect(lines).toContain('{"hasPassword":true,"requiresEmail":true}');
    },
    120_000,
  );
});
