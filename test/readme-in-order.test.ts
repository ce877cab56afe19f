import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { marked, missingTools, readmeService, under } from './helpers/readme.ts';

// Issue 48: a new user pastes the README's tour top to bottom into one shell. The blocks run here
// in the README's order, in one bash, against the real service: the evidence-files block must not
// change the variables (FORM, PLANT) that the indicators block after it uses, and the indicators
// block must print the figures the README states (480 kgCO2e, 0.48 tCO2e for the plant).
const blocks = {
  scenario: marked('scenario'),
  media: marked('media-scenario'),
  indicators: under('### Indicators and targets'),
  imports: marked('scenario-imports'),
  dashboards: marked('scenario-dashboards'),
  ghg: marked('scenario-ghg'),
};
const tools = missingTools(['curl', 'jq', 'bash', 'grep', 'cmp']);
const service = readmeService(tools.length > 0, { publicUrl: true });

describe('the README’s tour, pasted in order into one shell', () => {
  it('has its blocks', () => {
    for (const [name, block] of Object.entries(blocks)) expect(block, name).toBeDefined();
  });

  it.skipIf(tools.length > 0)(
    'runs every block in order and prints the indicator figures the README states',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'sdcs-readme-order-'));
      writeFileSync(join(dir, 'invoice.pdf'), '%PDF-1.4\n% an invoice\n1 0 obj << >> endobj\n%%EOF\n');
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', Object.values(blocks).join('\n')], {
        cwd: dir,
        env: { ...process.env, API: service.api, KEY: service.key, SDCS_DATA_DIR: service.dataDir },
        encoding: 'utf8',
        timeout: 150_000,
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const lines = run.stdout.trim().split('\n');
      expect(lines).toContain('same bytes');
      // The indicators block on the worked example's Energy form, not the evidence form:
      // January's 1,200 kWh × 400 kgCO2e/MWh = 480 kgCO2e, shown as 0.48 tCO2e.
      expect(lines).toContain('{"value":480,"unit":"kgCO2e","formatted":"0.48 tCO2e"}');
      // The dashboards and the two-country blocks after it still print what the README says.
      expect(lines).toContain('{"period":"total","label":"2024","value":0.9,"formatted":"0.9 tCO2e"}');
      expect(lines).toContain('{"value":215.21,"unit":"tCO2e","issues":[]}');
    },
    180_000,
  );
});
