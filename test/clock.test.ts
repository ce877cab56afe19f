import { describe, expect, it } from 'vitest';
import { api } from './helpers/app.ts';
import { buildDataset } from './helpers/builders.ts';
import { useClockTestApp } from './helpers/clock-app.ts';
import { createTenant } from './helpers/factories.ts';

// The injected clock, not the process's, decides an access token's expiry and the year of a
// dataset item that names none (issue 45). (An API key's last use is written by the database's
// now(); the clock only spares the statement while the stored one is under a minute old.)
const start = new Date('2031-03-10T08:00:00Z');
const t = useClockTestApp(start, { allowSignup: true });

describe('the injected clock', () => {
  it("dates an access token's expiry from its now", async () => {
    const res = await api(t, 'POST', '/auth/signup', {
      body: {
        organizationName: 'Later Ltd',
        name: 'Ada',
        email: 'ada@later.test',
        password: 'correct horse battery',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.expiresAt).toBe(
      new Date(start.getTime() + t.config.tokenTtlSeconds * 1000).toISOString(),
    );
  });

  it("gives a dataset item that names no year the clock's year, by API and by CSV import", async () => {
    t.now = start;
    const tenant = await createTenant(t);
    const dataset = (await buildDataset(t, { tenant, name: 'Factors' })).id;
    const res = await api(t, 'POST', '/dataset-items', {
      token: tenant.owner.token,
      body: { name: 'Bare', datasetId: dataset, data: { key: 'bare', value: 1 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.year).toBe(2031);
    const imported = await api(t, 'POST', `/datasets/${dataset}/import`, {
      token: tenant.owner.token,
      body: { csvContent: 'label,key,value\nDiesel,diesel,2.51\n' },
    });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ created: 1, failed: 0 });
    const exported = await api(t, 'GET', `/datasets/${dataset}/export`, { token: tenant.owner.token });
    expect(exported.body.csvContent).toContain('Diesel,diesel,2.51,,2031');
  });
});
