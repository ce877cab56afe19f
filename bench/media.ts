// Uploads through the local driver over loopback: presign, then a streamed multipart POST of
// a 25 MiB file (fetch with FormData), timed; the service's RSS growth shows it does not buffer.
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { engines, freshDatabase, median } from './lib.ts';

const SIZE = 25 * 1024 * 1024;
const ROUNDS = 3;

for (const engine of engines()) {
  const { database, config, drop } = await freshDatabase(engine);
  const app = await buildApp({ database, config: { ...config, publicUrl: 'http://127.0.0.1:0' } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const base = `http://127.0.0.1:${port}/api/v1`;
  const org = await createOrganizationWithKey(database, {
    organizationName: 'Bench',
    email: 'bench@example.com',
    name: 'Bench',
    password: null,
  });
  const file = randomBytes(SIZE);
  const times: number[] = [];
  let rssGrowth = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const presigned = await fetch(`${base}/media/presigned-url`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org!.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'big.pdf', entityId: 'b', fieldName: 'f', fileSize: SIZE }),
    }).then((r) => r.json());
    const form = new FormData();
    for (const [k, v] of Object.entries(presigned.fields as Record<string, string>)) form.append(k, v);
    form.append('file', new Blob([file], { type: 'application/pdf' }), 'big.pdf');
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const res = await fetch(`${base}/media/upload`, { method: 'POST', body: form });
    times.push(performance.now() - started);
    rssGrowth = Math.max(rssGrowth, process.memoryUsage().rss - rssBefore);
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  }
  const ms = median(times);
  console.log(
    `${engine}: 25 MiB upload median ${ms.toFixed(0)} ms (${(SIZE / 1024 / 1024 / (ms / 1000)).toFixed(0)} MiB/s), ` +
      `largest RSS growth during an upload ${(rssGrowth / 1024 / 1024).toFixed(0)} MiB (client and service share the process)`,
  );
  await app.close();
  await drop();
}
