import { describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  assignSites,
  createForm,
  createSite,
  createTenant,
} from '../../../test/helpers/factories.ts';

const t = useTestApp();

/** `ref op ref op … ref`: `count` references to one indicator. */
const repeated = (id: string, count: number) =>
  Array.from({ length: count }, (_, i) => [
    ...(i === 0 ? [] : [{ type: 'operator', value: '+' }]),
    { type: 'indicator', value: id },
  ]).flat();

describe('explain of an indicator used many times over (issue 25, item 1)', () => {
  it('explains each indicator once, referenced by id, instead of 200 × 200 × 200 copies', async () => {
    const tenant = await createTenant(t);
    const site = await createSite(t, tenant.organizationId, { name: 'Plant' });
    const form = await createForm(t, tenant, {
      periodType: 'YEARLY',
      elements: [{ key: 'amount', label: 'Amount', type: 'NUMBER' }],
    });
    await activateForm(t, tenant, form.id, [site], [2025]);
    await assignSites(t, tenant.organizationId, tenant.collector.userId, [site]);
    const submitted = await api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId: site,
        year: 2025,
        values: [{ elementKey: 'amount', periodUnit: 1, value: 2 }],
      },
    });
    expect(submitted.status).toBe(200);
    const create = async (name: string, expressionParts: unknown[]) => {
      const res = await api(t, 'POST', '/indicators', {
        token: tenant.owner.token,
        body: { name, expressionParts },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.id as string;
    };
    const f0 = await create('F0', [{ type: 'formElement', value: form.elements[0]!.id }]);
    const f1 = await create('F1', repeated(f0, 200));
    const f2 = await create('F2', repeated(f1, 200));
    const f3 = await create('F3', repeated(f2, 200));

    // Any member (the collector) may ask.
    const res = await api(t, 'POST', '/indicators/current-values', {
      token: tenant.collector.token,
      body: { indicatorIds: [f3], year: 2025, explain: true },
    });
    expect(res.status).toBe(200);
    const result = res.body.results[f3];
    // 2 × 200 × 200 × 200 = 16,000,000.
    expect(result.value).toBe(2 * 200 * 200 * 200);
    // Each nested indicator is explained once, in `indicators`; the references name it by id.
    expect(Object.keys(result.explain.indicators).sort()).toEqual([f0, f1, f2].sort());
    expect(result.explain.nested).toHaveLength(200);
    expect(new Set(result.explain.nested.map((n: { indicatorId: string }) => n.indicatorId))).toEqual(
      new Set([f2]),
    );
    expect(result.explain.indicators[f1].nested).toHaveLength(200);
    expect(result.explain.indicators[f0]).toMatchObject({ name: 'F0', value: 2, operands: [{ value: 2 }] });
    // Linear in the indicators, not in the references: a few hundred entries, well under 1 MB.
    expect(JSON.stringify(result.explain).length).toBeLessThan(1_000_000);
  });
});
