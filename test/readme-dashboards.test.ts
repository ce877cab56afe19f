import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { marked, missingTools, readmeService, under } from './helpers/readme.ts';

// The README's dashboards walk-through, run as a reader following the README from the top gets
// there: the worked example, the indicators and targets block, the spreadsheet import, then the
// dashboards block (the completeness part only reads, reminds and locks: no figure changes). Every
// `# {…}` answer the README shows under the dashboards block must be what the service prints.
const blocks = {
  scenario: marked('scenario'),
  indicators: under('### Indicators and targets'),
  imports: marked('scenario-imports'),
  dashboards: marked('scenario-dashboards'),
};
const tools = missingTools(['curl', 'jq', 'bash', 'grep']);
const service = readmeService(tools.length > 0);

describe('the README’s dashboards walk-through', () => {
  it('has its blocks', () => {
    for (const [name, block] of Object.entries(blocks)) expect(block, name).toBeDefined();
  });

  it.skipIf(tools.length > 0)(
    'prints what the README says it prints',
    () => {
      const script = [blocks.scenario, blocks.indicators, blocks.imports, blocks.dashboards].join('\n');
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
        env: { ...process.env, API: service.api, KEY: service.key, SDCS_DATA_DIR: service.dataDir },
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
