import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { byPeriod, type Point, useTargetWorld } from '../../../test/helpers/target-world.ts';
import { linearPath } from '../targets/targets.periods.ts';

/** Targets as glide paths, against figures computed by hand (the world: test/helpers/target-world.ts). */
const t = useTestApp();
const w = useTargetWorld(t);
const { sites, ind, board, data } = w;

describe('a linear path', () => {
  it('interpolates between anchors and leaves years outside them out', () => {
    const path = linearPath(
      [
        { year: 2024, value: 1000 },
        { year: 2026, value: 900 },
        { year: 2030, value: 580 },
      ],
      [2023, 2024, 2025, 2026, 2027, 2030, 2031],
    );
    // 2025: halfway from 1000 to 900; 2027: 900 + (580 - 900) × 1/4 = 820.
    expect([...path]).toEqual([
      [2024, 1000],
      [2025, 950],
      [2026, 900],
      [2027, 820],
      [2030, 580],
    ]);
  });
});

describe('targets drawn as glide paths', () => {
  it('YEARLY: a point per year from the baseline’s actual value to the target (2024-2030)', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2024, endYear: 2030 }, [
      { type: 'LINE', indicatorIds: [ind.elec], config: { period: 'YEARLY', showTarget: true } },
    ]);
    const view = await data(id);
    const [series] = view.data[0].series;
    expect(view.data[0].issues).toEqual([]);
    // Baseline 2024 (group): 600 + 400 = 1000 kWh; 2030: 1000 × (1 - 0.42) = 580;
    // each year 70 kWh less: (1000 - 580) / 6 = 70. Plant A's own target is not on the total.
    expect(series.targets).toHaveLength(1);
    expect(series.targets[0]).toMatchObject({ name: '-42% by 2030', type: 'ABSOLUTE' });
    const path = byPeriod(series.targets[0].points);
    expect(Object.keys(path)).toEqual(['2024', '2025', '2026', '2027', '2028', '2029', '2030']);
    const expected = [1000, 930, 860, 790, 720, 650, 580];
    for (const [i, value] of expected.entries()) expect(path[String(2024 + i)]).toBeCloseTo(value, 9);
    expect(series.targets[0].points[1]).toMatchObject({ label: '2025', formatted: '930 kWh' });
    // The path starts at the series' own 2024 value.
    expect(series.points[0]).toMatchObject({ period: '2024', value: 1000 });
  });

  it('YEARLY: a baseline before the filter still anchors the path (2025-2027: 930, 860, 790)', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2025, endYear: 2027 }, [
      { type: 'BAR', indicatorIds: [ind.elec], config: { showTarget: true } },
    ]);
    const path = byPeriod((await data(id)).data[0].series[0].targets[0].points);
    expect(Object.keys(path)).toEqual(['2025', '2026', '2027']);
    expect(path['2025']).toBeCloseTo(930, 9);
    expect(path['2026']).toBeCloseTo(860, 9);
    expect(path['2027']).toBeCloseTo(790, 9);
  });

  it('a breakdown’s site target starts from that site’s baseline (Plant A: 600 to 300)', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2024, endYear: 2030 }, [
      { type: 'LINE', indicatorIds: [ind.elec], config: { sites: 'CHILDREN', showTarget: true } },
    ]);
    const view = await data(id);
    const plantA = view.data[0].series.find((s: { siteName: string }) => s.siteName === 'Plant A');
    // Plant A 2024: 600 kWh; 2030: 300; (600 - 300) / 6 = 50 a year: 2025 550, 2027 450.
    expect(plantA.targets.map((l: { name: string }) => l.name)).toEqual(['Plant A to 300']);
    const path = byPeriod(plantA.targets[0].points);
    expect(path['2024']).toBe(600);
    expect(path['2025']).toBeCloseTo(550, 9);
    expect(path['2027']).toBeCloseTo(450, 9);
    expect(path['2030']).toBe(300);
    // Plant B has no target of its own (the -42 % is the organization's, not a plant's).
    const plantB = view.data[0].series.find((s: { siteName: string }) => s.siteName === 'Plant B');
    expect(plantB.targets).toEqual([]);
  });

  it('MONTHLY and QUARTERLY: the year’s path value split evenly (2025: 930 / 12, 930 / 4)', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'LINE', indicatorIds: [ind.elec], config: { period: 'MONTHLY', showTarget: true } },
      { type: 'BAR', indicatorIds: [ind.elec], config: { period: 'QUARTERLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.scaled], config: { period: 'MONTHLY', showTarget: true } },
    ]);
    const view = await data(id);
    const monthly = view.data[0].series[0].targets[0].points as Point[];
    expect(monthly).toHaveLength(12);
    // 930 / 12 = 77.5 kWh a month; the twelve add up to the year's 930.
    for (const p of monthly) expect(p.value).toBeCloseTo(77.5, 9);
    expect(monthly[0]).toMatchObject({ period: '2025-01', formatted: '77.5 kWh' });
    const quarterly = view.data[1].series[0].targets[0].points as Point[];
    expect(quarterly.map((p) => p.period)).toEqual(['2025-Q1', '2025-Q2', '2025-Q3', '2025-Q4']);
    for (const p of quarterly) expect(p.value).toBeCloseTo(232.5, 9);
    // elec / 1000 is still a sum over time: 0.9 / 12 = 0.075 a month.
    expect(view.data[2].issues).toEqual([]);
    expect(view.data[2].series[0].targets[0].points[5].value).toBeCloseTo(0.075, 12);
    expect(view.data[0].issues).toEqual([]);
  });

  it('says why a target cannot be drawn: not a sum over time, no baseline value, no entry on the periods', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2024, endYear: 2030 }, [
      { type: 'LINE', indicatorIds: [ind.head], config: { period: 'MONTHLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.intensity], config: { period: 'QUARTERLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.elecNoBase], config: { period: 'YEARLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.monthlyOnly], config: { period: 'YEARLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.head], config: { period: 'YEARLY', showTarget: true } },
    ]);
    const view = await data(id);
    const [head, intensity, noBase, monthlyOnly, headYearly] = view.data;
    expect(head.series[0].targets).toEqual([]);
    expect(head.issues).toEqual([
      expect.objectContaining({
        type: 'targetNotAdditive',
        indicatorId: ind.head,
        targetId: expect.any(String),
      }),
    ]);
    expect(head.issues[0].message).toContain('Headcount is not a sum over time');
    expect(intensity.series[0].targets).toEqual([]);
    expect(intensity.issues.map((i: { type: string }) => i.type)).toEqual(['targetNotAdditive']);
    // No 2023 value: the 2030 point alone (500), and the reason.
    expect(noBase.series[0].targets[0].points).toEqual([
      { period: '2030', label: '2030', value: 500, formatted: '500 kWh' },
    ]);
    expect(noBase.issues).toEqual([expect.objectContaining({ type: 'targetBaselineMissing' })]);
    expect(noBase.issues[0].message).toContain('baseline year 2023');
    // A monthly entry is not added up into a year.
    expect(monthlyOnly.series[0].targets).toEqual([]);
    expect(monthlyOnly.issues).toEqual([expect.objectContaining({ type: 'targetNotShown' })]);
    expect(monthlyOnly.issues[0].message).toContain('finer than');
    // On a yearly widget the headcount target is drawn (no baseline: its own year only).
    expect(headYearly.series[0].targets[0].points).toEqual([
      { period: '2025', label: '2025', value: 25, formatted: '25' },
    ]);
    expect(headYearly.issues).toEqual([]);
  });
});

describe('targets split and percentages', () => {
  it('a quarterly entry is split into its months; the year is not split where a finer entry exists', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'LINE', indicatorIds: [ind.quarterly], config: { period: 'MONTHLY', showTarget: true } },
      { type: 'BAR', indicatorIds: [ind.quarterly], config: { period: 'QUARTERLY', showTarget: true } },
    ]);
    const view = await data(id);
    // Q1: 300 / 3 = 100 a month; the year's 1,200 is not spread, since 2025 has a quarterly entry.
    expect(byPeriod(view.data[0].series[0].targets[0].points)).toEqual({
      '2025-01': 100,
      '2025-02': 100,
      '2025-03': 100,
    });
    // Quarterly widget: Q1 as entered; the year again left alone (Q1 is entered).
    expect(byPeriod(view.data[1].series[0].targets[0].points)).toEqual({ '2025-Q1': 300 });
    expect(view.data[0].issues).toEqual([]);
  });

  it('a percentage without a baseline stays in % on a yearly widget, with the reason', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'LINE', indicatorIds: [ind.percentNoBase], config: { showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.percentNoBase], config: { period: 'MONTHLY', showTarget: true } },
    ]);
    const view = await data(id);
    expect(view.data[0].series[0].targets[0]).toMatchObject({
      type: 'PERCENTAGE',
      points: [{ period: '2025', value: -10, formatted: '-10 %' }],
    });
    expect(view.data[0].issues).toEqual([expect.objectContaining({ type: 'targetBaselineMissing' })]);
    expect(view.data[0].issues[0].message).toContain('no baseline year');
    // Never divided into months: a percentage is not a quantity. One issue says why.
    expect(view.data[1].series[0].targets).toEqual([]);
    expect(view.data[1].issues.map((i: { type: string }) => i.type)).toEqual(['targetBaselineMissing']);
  });

  it('splits a nested sum (24 / 12 = 2 a month), not an affine expression or a product of data', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'LINE', indicatorIds: [ind.nestedSum], config: { period: 'MONTHLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.affine], config: { period: 'MONTHLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.product], config: { period: 'MONTHLY', showTarget: true } },
    ]);
    const view = await data(id);
    const nested = view.data[0].series[0].targets[0].points as Point[];
    expect(nested).toHaveLength(12);
    for (const p of nested) expect(p.value).toBe(2);
    for (const widget of view.data.slice(1)) {
      expect(widget.series[0].targets).toEqual([]);
      expect(widget.issues.map((i: { type: string }) => i.type)).toEqual(['targetNotAdditive']);
    }
  });
});
