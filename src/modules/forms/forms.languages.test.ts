import { describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createTenant } from '../../../test/helpers/factories.ts';

const t = useTestApp();

describe('forms and elements in other languages', () => {
  it('keeps the texts as written and stores names, labels and help texts per language', async () => {
    const tenant = await createTenant(t);
    const body = {
      name: 'Energy',
      names: { de: 'Energie', fr: 'Énergie' },
      periodType: 'MONTHLY',
      elements: [
        {
          key: 'electricity',
          label: 'Electricity used',
          labels: { de: 'Stromverbrauch', pl: 'Zużycie energii elektrycznej' },
          helpTexts: { en: 'From the meter', de: 'Vom Zähler' },
          type: 'TEXT',
        },
        { key: 'note', label: 'Note', type: 'TEXT' },
      ],
    };
    const created = await api(t, 'POST', '/forms', { token: tenant.owner.token, body });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.name).toBe('Energy');
    expect(created.body.names).toEqual({ de: 'Energie', fr: 'Énergie' });
    const [electricity, note] = created.body.elements;
    expect(electricity.label).toBe('Electricity used');
    expect(electricity.labels).toEqual({ de: 'Stromverbrauch', pl: 'Zużycie energii elektrycznej' });
    expect(electricity.helpTexts).toEqual({ en: 'From the meter', de: 'Vom Zähler' });
    expect(note.labels).toEqual({});
    expect(note.helpTexts).toEqual({});

    // An update replaces them like any other field; the read answers what was stored.
    const updated = await api(t, 'PUT', `/forms/${created.body.id}`, {
      token: tenant.owner.token,
      body: { ...body, names: {}, elements: [{ ...body.elements[0], labels: { es: 'Electricidad' } }] },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const read = await api(t, 'GET', `/forms/${created.body.id}`, { token: tenant.viewer.token });
    expect(read.body.names).toEqual({});
    expect(read.body.elements[0].labels).toEqual({ es: 'Electricidad' });
  });

  it('refuses a language SDCS does not ship and an empty text, naming the field; nothing is stored', async () => {
    const tenant = await createTenant(t);
    for (const [labels, path] of [
      [{ it: 'Elettricità' }, 'labels'],
      [{ de: '' }, 'labels'],
    ] as const) {
      const res = await api(t, 'POST', '/forms', {
        token: tenant.owner.token,
        body: {
          name: 'Bad',
          periodType: 'YEARLY',
          elements: [{ key: 'x', label: 'X', labels, type: 'TEXT' }],
        },
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.issues)).toContain(path);
    }
    expect((await api(t, 'GET', '/forms', { token: tenant.owner.token })).body).toEqual([]);
  });
});
