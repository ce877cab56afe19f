import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { marked, missingTools, readmeService } from './helpers/readme.ts';

// The README's worked example, run exactly as written against the real service, so that the
// README cannot drift from the API.
const scenario = marked('scenario');
// The source-import walk-through continues the worked example (same variables), so both run as one.
const imports = marked('scenario-imports');
// The two-country Scope 2 walk-through continues them too (same `call` and `GROUP`).
const ghg = marked('scenario-ghg');
const tools = missingTools(['curl', 'jq', 'bash']);
const service = readmeService(tools.length > 0);

describe('the README’s worked example', () => {
  it('is in the README', () => {
    expect(scenario).toBeDefined();
  });

  it.skipIf(tools.length > 0)(
    `runs as written (needs ${['curl', 'jq', 'bash'].join(', ')})`,
    () => {
      const run = spawnSync(
        'bash',
        ['-euo', 'pipefail', '-c', `${scenario!}\n${imports ?? ''}\n${ghg ?? ''}`],
        {
          env: { ...process.env, API: service.api, KEY: service.key },
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const lines = run.stdout.trim().split('\n');
      expect(lines[0]).toBe('{"success":true}');
      // The electricity value is converted from MWh into the element's kWh, the original kept.
      expect(lines).toContainEqual(expect.stringMatching(/"value":1200,"originalValue":1\.2}$/));
      // Each refuel is one activity calculated by the definition's calcCode (litres × 2.68).
      expect(lines).toContain('{"input":{"litres":100},"value":268}');
      expect(lines).toContain('{"input":{"litres":50},"value":134}');
      if (imports) {
        // The import: two bad rows explained, blocked by the missing form-site, then written.
        expect(lines).toContain(
          '{"total":6,"parsed":4,"ready":3,"imported":0,"reduced":1,"skipped":0,"failed":2}',
        );
        expect(lines).toContainEqual(expect.stringContaining('"message":"No site has code \\"P9\\""'));
        expect(lines).toContainEqual(expect.stringMatching(/^\{"blocked":true,/));
        expect(lines).toContain(
          '{"total":6,"parsed":4,"ready":3,"imported":3,"reduced":1,"skipped":0,"failed":2}',
        );
        expect(lines).toContain('{"elementKey":"elec","periodUnit":2,"value":1000}');
        expect(lines).toContain('{"input":{"litres":40},"value":107.2}');
        expect(lines).toContainEqual(expect.stringMatching(/^\{"replayed":true,/));
        expect(lines).toContainEqual(expect.stringMatching(/^\{"code":"CONFLICT",/));
      }
      // The two-country Scope 2: each plant × its country's factor, added up; the intensity.
      expect(ghg).toBeDefined();
      expect(lines).toContain('{"value":215.21,"unit":"tCO2e","issues":[]}');
      expect(lines).toContain('{"value":2.1521,"unit":"tCO2e/count","issues":[]}');
      expect(lines).toContain(
        '[{"key":"grid_DE","value":342.06,"siteCount":1},{"key":"grid_FR","value":44.18,"siteCount":2}]',
      );
      // The factor library's grid dataset: common and read-only, refused to a change.
      expect(lines).toContain(
        '{"isCommon":true,"readOnly":true,"licence":"CC BY-SA 4.0","version":"Ember yearly data as shipped in CO2.js 0.19.0"}',
      );
      expect(lines).toContainEqual(expect.stringContaining('The built-in factor library is read-only'));
      expect(lines).toContain('"expressionParts.1"');
    },
    90_000,
  );
});
