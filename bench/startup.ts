// Start-up time of `sdcs serve` as a user runs it: first start on an empty embedded data
// directory, then restarts on the existing one (wall time from spawn of the bundled service
// to its "listening" line).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './lib.ts';

const BIN = new URL('../dist/sdcs.mjs', import.meta.url).pathname;
const RESTARTS = 5;

function startAndStop(dataDir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const env: NodeJS.ProcessEnv = { ...process.env, SDCS_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' };
    delete env['DATABASE_URL'];
    const child = spawn(process.execPath, [BIN, 'serve'], { env });
    let out = '';
    let elapsed = 0;
    child.stdout.on('data', (d) => {
      out += d;
      if (!elapsed && out.includes('SDCS listening on')) {
        elapsed = performance.now() - started;
        child.kill('SIGTERM');
      }
    });
    child.on('exit', (code) => (elapsed ? resolve(elapsed) : reject(new Error(`exit ${code}: ${out}`))));
  });
}

// What `npm start` runs: the bundle build, then the bundled service.
const buildStarted = performance.now();
spawnSync(process.execPath, [new URL('../scripts/build.mjs', import.meta.url).pathname], {
  stdio: 'inherit',
});
const buildMs = performance.now() - buildStarted;

const dataDir = mkdtempSync(join(tmpdir(), 'sdcs-startup-'));
const first = await startAndStop(dataDir);
const again: number[] = [];
for (let i = 0; i < RESTARTS; i++) again.push(await startAndStop(dataDir));
console.log('| start-up (embedded database, wall time to listening) | ms |');
console.log('|---|---|');
console.log(`| first start, empty data directory | ${Math.round(first)} |`);
console.log(`| restart on existing directory, median of ${RESTARTS} | ${Math.round(median(again))} |`);
console.log(`| bundle build that \`npm start\` runs first | ${Math.round(buildMs)} |`);
console.log(`| restart, slowest of ${RESTARTS} | ${Math.round(Math.max(...again))} |`);
