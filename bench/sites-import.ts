// POST /api/v1/sites/import of 10,000 rows (100 regions of 99 sites each, children written
// before their region so every parent is a forward reference; address and metadata columns),
// through app.inject, into a fresh organization per run: `npm run bench -- sites-import`.
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { engines, freshDatabase, median } from './lib.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
const REGIONS = 100;
const PER_REGION = 99;

function csv(): string {
  const lines = ['name,code,parent,latitude,longitude,city,country,metadata.kind,metadata.headcount'];
  for (let r = 1; r <= REGIONS; r++) {
    for (let s = 1; s <= PER_REGION; s++) {
      const lat = ((r * 7 + s) % 170) - 85;
      const lon = ((r * 13 + s * 3) % 350) - 175;
      lines.push(`"Site ${r}-${s}, main",S${r}-${s},R${r},${lat}.25,${lon}.5,City ${s},FR,plant,${s * 10}`);
    }
    lines.push(`Region ${r},R${r},,,,,,region,`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

const content = csv();
const rows: string[] = [];
for (const engine of engines()) {
  const { database, config, drop } = await freshDatabase(engine);
  const app = await buildApp({ database, config });
  await app.ready();
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const org = await createOrganizationWithKey(database, {
      organizationName: `Bench ${run}`,
      email: `bench-${run}@example.com`,
      name: 'Bench',
      password: null,
    });
    const started = performance.now();
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/sites/import',
      headers: { authorization: `Bearer ${org!.apiKey}` },
      payload: { csvContent: content, organizationId: org!.organization.id },
    });
    times.push(performance.now() - started);
    const body = res.json();
    if (res.statusCode !== 200 || body.success !== REGIONS * (PER_REGION + 1)) {
      throw new Error(`import failed: ${res.statusCode} ${JSON.stringify(body).slice(0, 300)}`);
    }
  }
  const fmt = (ms: number) => (ms / 1000).toFixed(2);
  rows.push(
    `| ${engine} | ${fmt(median(times))} | ${fmt(Math.min(...times))} | ${fmt(Math.max(...times))} |`,
  );
  await app.close();
  await drop();
}

const mib = (Buffer.byteLength(content) / 1024 / 1024).toFixed(2);
console.log(`Site import: ${REGIONS * (PER_REGION + 1)} rows (${mib} MiB of CSV), ${RUNS} runs, app.inject`);
console.log('| engine | median s | min s | max s |');
console.log('|---|---|---|---|');
for (const row of rows) console.log(row);
