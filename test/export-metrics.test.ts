import { describe, expect, it } from 'vitest';
import type { Caller } from '../src/domain/caller.ts';
import { ExportGate, exportsRunning } from '../src/modules/exports/exports.gate.ts';
import { useTestApp } from './helpers/app.ts';

/**
 * Issue 41 (the rest): the export gate and the stream pool in `/metrics`. The gate's places and
 * refusals are counted per process; the stream pool's use is read when scraped.
 */
const METRICS_TOKEN = 'metrics-token-0123456789';
const t = useTestApp({ metricsToken: METRICS_TOKEN });

const scrape = async () => {
  const res = await t.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  expect(res.statusCode).toBe(200);
  return res.body;
};
const figure = (body: string, series: string) => {
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  expect(line, series).toBeDefined();
  return Number(line!.slice(series.length + 1));
};

const caller = (userId: string, organizationId: string): Caller => ({
  userId,
  organizationId,
  role: 'VIEWER',
  isAdmin: false,
  email: `${userId}@example.com`,
  name: userId,
  image: null,
  credential: { kind: 'token', id: `t-${userId}` },
});
const reply = { header: () => reply } as never;

describe('export figures in /metrics', () => {
  it('counts running exports and each kind of refusal, and shows the stream pool', async () => {
    const before = await scrape();
    const running = figure(before, 'sdcs_exports_running');
    const refused = (body: string, reason: string) =>
      figure(body, `sdcs_exports_refused_total{reason="${reason}"}`);
    const gate = new ExportGate({ perCaller: 1, perOrganization: 2, total: 3 });
    const leaves = [await gate.enter(caller('ann', 'org-a'), reply)];
    // Ann's second: her own cap (429).
    await expect(gate.enter(caller('ann', 'org-a'), reply)).rejects.toThrow(/exports running/);
    leaves.push(await gate.enter(caller('bob', 'org-a'), reply));
    // Carl of the same organization: its cap (429).
    await expect(gate.enter(caller('carl', 'org-a'), reply)).rejects.toThrow(/Your organization/);
    leaves.push(await gate.enter(caller('dora', 'org-b'), reply));
    // Every place of the process taken (503).
    await expect(gate.enter(caller('eve', 'org-c'), reply)).rejects.toThrow(/Every export place/);

    // Running exports make their organizations load sources of the overload rule (decision 205).
    expect([exportsRunning('org-a'), exportsRunning('org-b'), exportsRunning('org-c')]).toEqual([
      true,
      true,
      false,
    ]);

    const during = await scrape();
    expect(figure(during, 'sdcs_exports_running')).toBe(running + 3);
    expect(refused(during, 'caller') - refused(before, 'caller')).toBe(1);
    expect(refused(during, 'organization') - refused(before, 'organization')).toBe(1);
    expect(refused(during, 'capacity') - refused(before, 'capacity')).toBe(1);
    for (const gauge of ['connections', 'in_use', 'waiting'])
      expect(figure(during, `sdcs_db_stream_pool_${gauge}`)).toBeGreaterThanOrEqual(0);
    expect(during).toContain('# HELP sdcs_exports_refused_total Exports refused');

    for (const leave of leaves) leave();
    expect([exportsRunning('org-a'), exportsRunning('org-b')]).toEqual([false, false]);
    const after = await scrape();
    expect(figure(after, 'sdcs_exports_running')).toBe(running);
    // Counters only grow.
    expect(refused(after, 'caller')).toBe(refused(during, 'caller'));
  });
});
