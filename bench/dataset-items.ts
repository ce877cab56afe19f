// GET /api/v1/dataset-items with 100,000 items (90,000 of the organization in 3 datasets plus
// 10,000 in another organization's common dataset), and the CSV import and export around it,
// through app.inject on each engine: `npm run bench -- dataset-items`.
import { buildApp } from '../src/app.ts';
import { listItems } from '../src/modules/datasets/dataset-items.service.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { engines, freshDatabase, median } from './lib.ts';

const PER_DATASET = 30_000;
const COMMON = 10_000;
const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);

function csv(rows: number, tag: string, year = 2024): string {
  const lines = [`label,key,value,unit,year,metadata.source,metadata.region`];
  for (let i = 0; i < rows; i++) {
    lines.push(`"${tag} factor ${i}, grid",${tag}-${i},${(i + 1) / 7},kgCO2e,${year},DESNZ ${i % 10},UK`);
  }
  return lines.join('\n');
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const rows: string[] = [];

for (const engine of engines()) {
  const fresh = await freshDatabase(engine);
  const { database, drop } = fresh;
  const config = { ...fresh.config, adminEmails: new Set(['bench-admin@example.com']) };
  const app = await buildApp({ database, config });
  const org = async (email: string) => {
    const created = await createOrganizationWithKey(database, {
      organizationName: email,
      email,
      name: email,
      password: null,
    });
    return { authorization: `Bearer ${created!.apiKey}`, organizationId: created!.organization.id };
  };
  const call = async (method: 'GET' | 'POST', url: string, headers: object, payload?: object) => {
    const started = performance.now();
    const res = await app.inject({ method, url: `/api/v1${url}`, headers: headers as never, payload });
    const ms = performance.now() - started;
    if (res.statusCode !== 200)
      throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return { ms, body: res.body };
  };

  const owner = await org('bench-owner@example.com');
  const admin = await org('bench-admin@example.com');

  const imports: number[] = [];
  const datasetIds: string[] = [];
  for (const tag of ['a', 'b', 'c']) {
    const ds = JSON.parse((await call('POST', '/datasets', owner, { name: `Dataset ${tag}` })).body);
    datasetIds.push(ds.id);
    imports.push(
      (await call('POST', `/datasets/${ds.id}/import`, owner, { csvContent: csv(PER_DATASET, tag) })).ms,
    );
  }
  const shared = JSON.parse(
    (await call('POST', '/datasets', admin, { name: 'Common', isCommon: true })).body,
  );
  await call('POST', `/datasets/${shared.id}/import`, admin, { csvContent: csv(COMMON, 'common') });

  const list: number[] = [];
  const query: number[] = [];
  let count = 0;
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const res = await call('GET', '/dataset-items', owner);
    list.push(res.ms);
    bytes = res.body.length;
    count = JSON.parse(res.body).length;
    const started = performance.now();
    await database.tenant(owner.organizationId, (tx) =>
      listItems(tx, { organizationId: owner.organizationId } as never),
    );
    query.push(performance.now() - started);
  }
  if (count !== 3 * PER_DATASET + COMMON) throw new Error(`listed ${count} items`);

  const exports: number[] = [];
  let exported = '';
  for (let i = 0; i < RUNS; i++) {
    const res = await call('GET', `/datasets/${datasetIds[0]}/export`, owner);
    exports.push(res.ms);
    exported = JSON.parse(res.body).csvContent;
  }
  const unchanged = await call('POST', `/datasets/${datasetIds[0]}/import`, owner, { csvContent: exported });
  const changed = exported.replaceAll(',UK\n', ',GB\n');
  const updated = await call('POST', `/datasets/${datasetIds[0]}/import`, owner, { csvContent: changed });
  if (!unchanged.body.includes(`"unchanged":${PER_DATASET}`) || !updated.body.includes(`"updated":`)) {
    throw new Error(
      `unexpected import answers ${unchanged.body.slice(0, 100)} ${updated.body.slice(0, 100)}`,
    );
  }

  rows.push(
    `| ${engine} | ${seconds(median(list))} | ${seconds(median(query))} | ${(bytes / 1048576).toFixed(1)} | ` +
      `${seconds(median(exports))} | ${seconds(median(imports))} | ${seconds(unchanged.ms)} | ${seconds(updated.ms)} |`,
  );
  await app.close();
  await drop();
}

console.log(
  `dataset items: list of ${3 * PER_DATASET + COMMON} items (median of ${RUNS}); export, import of ${PER_DATASET} rows`,
);
console.log(
  '| engine | GET /dataset-items s | of which database s | answer MiB | export 30k s | import 30k new s | re-import unchanged s | import 30k updates s |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
