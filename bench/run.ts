// Runs the named benchmarks one after another (all when none is named):
//   npm run bench -- http startup        (set DATABASE_URL to include PostgreSQL)
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const dir = new URL('.', import.meta.url).pathname;
const available = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !['run.ts', 'lib.ts'].includes(f))
  .map((f) => f.replace(/\.ts$/, ''));
const wanted = process.argv.slice(2);
const chosen = wanted.length ? wanted : available;
for (const name of chosen) {
  if (!available.includes(name)) {
    console.error(`unknown benchmark "${name}"; available: ${available.join(', ')}`);
    process.exit(2);
  }
  console.log(`\n## ${name}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${name}.ts`], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
