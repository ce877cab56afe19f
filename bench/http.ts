// Authenticated GET /api/v1/apikeys against a bare Fastify hello-world, in the same run, on
// each engine. Loopback only, 10 connections, a fixed duration: `npm run bench -- http`.
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { buildApp } from '../src/app.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { engines, freshDatabase } from './lib.ts';

const DURATION_S = Number(process.env['BENCH_SECONDS'] ?? 8);
const CONNECTIONS = 10;

async function load(url: string, headers: Record<string, string> = {}) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99 };
}

const hello = Fastify();
hello.get('/', async () => ({ hello: 'world' }));
await hello.listen({ port: 0, host: '127.0.0.1' });
const helloPort = (hello.server.address() as { port: number }).port;
const rows: string[] = [];
const baseline = await load(`http://127.0.0.1:${helloPort}/`);
rows.push(`| bare Fastify hello-world | - | ${baseline.rps} | ${baseline.p50} | ${baseline.p99} |`);
await hello.close();

for (const engine of engines()) {
  const { database, config, drop } = await freshDatabase(engine);
  const created = await createOrganizationWithKey(database, {
    organizationName: 'Bench',
    email: 'bench@example.com',
    name: 'Bench',
    password: null,
  });
  const app = await buildApp({ database, config });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const r = await load(`http://127.0.0.1:${port}/api/v1/apikeys`, {
    authorization: `Bearer ${created!.apiKey}`,
  });
  rows.push(`| GET /api/v1/apikeys (API key) | ${engine} | ${r.rps} | ${r.p50} | ${r.p99} |`);
  await app.close();
  await drop();
}

console.log(`HTTP: ${CONNECTIONS} connections, ${DURATION_S} s each, loopback`);
console.log('| what | engine | requests/s | p50 ms | p99 ms |');
console.log('|---|---|---|---|---|');
for (const row of rows) console.log(row);
