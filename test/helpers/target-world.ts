import { beforeAll, expect } from 'vitest';
import { api, type TestContext } from './app.ts';
import { activateForm, createForm, createSite, createTenant, type Tenant } from './factories.ts';

/**
 * The world of the target and breakdown tests, whose figures are computed by hand.
 *
 * Sites: Group > Plant A, Plant B; Other (top level, outside the group). A monthly form with
 * electricity (kWh, SUM) and headcount (LAST). Values (submitted, counted by the default statuses):
 *
 * | site    | 2024 electricity | 2025 electricity | 2024 headcount (Jan) | 2025 headcount (Jan) |
 * |---------|------------------|------------------|----------------------|----------------------|
 * | Plant A | Jan 600          | Jan 500          | 10                   | 10                   |
 * | Plant B | Jan 400          | Mar 300          | 10                   | 10                   |
 * | Other   |                  | Jan 9000         |                      |                      |
 *
 * So the group used 1,000 kWh in 2024 and 800 kWh in 2025.
 */
export function useTargetWorld(t: TestContext) {
  let tenant: Tenant;
  let token: string;
  let formId: string;
  const sites = { group: '', plantA: '', plantB: '', other: '' };
  const ind = {
    elec: '',
    elecNoBase: '',
    head: '',
    intensity: '',
    scaled: '',
    monthlyOnly: '',
    quarterly: '',
    percentNoBase: '',
    nestedSum: '',
    affine: '',
    product: '',
  };

  async function submit(siteId: string, year: number, values: [string, number, number][]) {
    const res = await api(t, 'POST', '/form-submissions', {
      token,
      body: {
        formId,
        siteId,
        year,
        values: values.map(([elementKey, periodUnit, value]) => ({ elementKey, periodUnit, value })),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  async function indicator(name: string, unit: string | null, expressionParts: unknown[]) {
    const units = await t.database.system((tx) =>
      tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
    );
    const unitId = unit ? units.find((u) => u.symbol === unit)!.id : undefined;
    const res = await api(t, 'POST', '/indicators', {
      token,
      body: { name, ...(unitId ? { unitId } : {}), expressionParts },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id as string;
  }

  async function storeIndicator(name: string, expressionParts: unknown[]) {
    const row = await t.database.tenant(tenant.organizationId, (tx) =>
      tx
        .insertInto('indicators')
        .values({
          organization_id: tenant.organizationId,
          name,
          label: null,
          description: null,
          unit_id: null,
          display_unit_id: null,
          expression_parts: JSON.stringify(expressionParts),
          preferred_dataset_item_name: null,
          preferred_dataset_item_dataset_id: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow(),
    );
    return row.id;
  }

  async function target(indicatorId: string, body: Record<string, unknown>) {
    const res = await api(t, 'POST', '/targets', { token, body: { indicatorId, ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id as string;
  }

  async function board(
    globalFilter: Record<string, unknown>,
    widgets: Record<string, unknown>[],
    extra = {},
  ) {
    const res = await api(t, 'POST', '/dashboards', {
      token,
      body: { name: 'Targets', globalFilter, ...extra },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const widget of widgets) {
      const added = await api(t, 'POST', `/dashboards/${res.body.id}/widgets`, {
        token,
        body: { title: 'W', ...widget },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    }
    return res.body.id as string;
  }

  const data = async (id: string, as = token) => {
    const res = await api(t, 'GET', `/dashboards/${id}/data`, { token: as });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    tenant = await createTenant(t);
    token = tenant.owner.token;
    const org = tenant.organizationId;
    sites.group = await createSite(t, org, { name: 'Group' });
    sites.plantA = await createSite(t, org, { name: 'Plant A', parentId: sites.group });
    sites.plantB = await createSite(t, org, { name: 'Plant B', parentId: sites.group });
    sites.other = await createSite(t, org, { name: 'Other' });
    const kwh = await t.database.system((tx) =>
      tx
        .selectFrom('units')
        .select('id')
        .where('symbol', '=', 'kWh')
        .where('organization_id', 'is', null)
        .execute(),
    );
    const form = await createForm(t, tenant, {
      periodType: 'MONTHLY',
      elements: [
        { key: 'elec', label: 'Electricity', type: 'NUMBER', unitId: kwh[0]!.id },
        { key: 'head', label: 'Headcount', type: 'NUMBER', aggregation: 'LAST' },
      ],
    });
    formId = form.id;
    const element = Object.fromEntries(form.elements.map((e) => [e.key, e.id]));
    await activateForm(t, tenant, formId, Object.values(sites), [2024, 2025, 2026]);
    await submit(sites.plantA, 2024, [
      ['elec', 1, 600],
      ['head', 1, 10],
    ]);
    await submit(sites.plantB, 2024, [
      ['elec', 1, 400],
      ['head', 1, 10],
    ]);
    await submit(sites.plantA, 2025, [
      ['elec', 1, 500],
      ['head', 1, 10],
    ]);
    await submit(sites.plantB, 2025, [
      ['elec', 3, 300],
      ['head', 1, 10],
    ]);
    await submit(sites.other, 2025, [['elec', 1, 9000]]);

    const el = (value: string) => ({ type: 'formElement', value });
    const op = (value: string) => ({ type: 'operator', value });
    const num = (value: string) => ({ type: 'number', value });
    ind.elec = await indicator('Electricity', 'kWh', [el(element.elec!)]);
    ind.elecNoBase = await indicator('Electricity (2023 baseline)', 'kWh', [el(element.elec!)]);
    ind.head = await indicator('Headcount', null, [el(element.head!)]);
    ind.intensity = await indicator('Electricity per head', 'kWh', [
      el(element.elec!),
      op('/'),
      el(element.head!),
    ]);
    ind.scaled = await indicator('Electricity in MWh', 'MWh', [el(element.elec!), op('/'), num('1000')]);
    ind.monthlyOnly = await indicator('Electricity (monthly target)', 'kWh', [el(element.elec!)]);

    // -42 % of the 2024 baseline by 2030 (SBTi-style), for the whole organization.
    await target(ind.elec, {
      title: '-42% by 2030',
      baselineYear: 2024,
      targetEntries: [{ year: 2030, targetValue: -42, type: 'PERCENTAGE' }],
    });
    // A plant's own target, absolute: 300 kWh in 2030 from Plant A's 2024 actual.
    await target(ind.elec, {
      title: 'Plant A to 300',
      baselineYear: 2024,
      targetEntries: [{ year: 2030, targetValue: 300, siteId: sites.plantA }],
    });
    // A baseline year without data: only the 2030 point can be drawn.
    await target(ind.elecNoBase, {
      title: 'To 500',
      baselineYear: 2023,
      targetEntries: [{ year: 2030, targetValue: 500 }],
    });
    await target(ind.head, { title: 'Headcount 25', targetEntries: [{ year: 2025, targetValue: 25 }] });
    await target(ind.intensity, { title: 'Intensity 30', targetEntries: [{ year: 2025, targetValue: 30 }] });
    await target(ind.scaled, { title: 'Below 0.9 MWh', targetEntries: [{ year: 2025, targetValue: 0.9 }] });
    ind.quarterly = await indicator('Electricity (quarterly target)', 'kWh', [el(element.elec!)]);
    ind.percentNoBase = await indicator('Electricity (no baseline)', 'kWh', [el(element.elec!)]);
    await target(ind.quarterly, {
      title: 'Q1 300, year 1200',
      targetEntries: [
        { year: 2025, quarter: 1, targetValue: 300 },
        { year: 2025, targetValue: 1200 },
      ],
    });
    await target(ind.percentNoBase, {
      title: 'Minus 10 %',
      targetEntries: [{ year: 2025, targetValue: -10, type: 'PERCENTAGE' }],
    });
    // Nested: Electricity × 2 is still a sum over time; elec + 5 and elec × elec are not.
    ind.nestedSum = await indicator('Twice the electricity', 'kWh', [
      { type: 'indicator', value: ind.elec },
      op('*'),
      num('2'),
    ]);
    // (Stored directly: a unit check on POST /indicators may refuse them; stored ones still compute.)
    ind.affine = await storeIndicator('Electricity plus 5', [el(element.elec!), op('+'), num('5')]);
    ind.product = await storeIndicator('Electricity squared', [
      el(element.elec!),
      op('*'),
      el(element.elec!),
    ]);
    for (const id of [ind.nestedSum, ind.affine, ind.product])
      await target(id, { title: 'Yearly 24', targetEntries: [{ year: 2025, targetValue: 24 }] });
    await target(ind.monthlyOnly, {
      title: 'January',
      targetEntries: [{ year: 2025, month: 1, targetValue: 1000 }],
    });
  });

  return {
    get tenant() {
      return tenant;
    },
    get token() {
      return token;
    },
    get formId() {
      return formId;
    },
    sites,
    ind,
    submit,
    target,
    board,
    data,
  };
}

export type Point = { period: string; value: number | null; formatted: string | null };
export const byPeriod = (points: Point[]) => Object.fromEntries(points.map((p) => [p.period, p.value]));
