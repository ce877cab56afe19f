import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded database is one process's: a second process opening the same directory
 * would corrupt it. A pid file refuses that with a clear message and is removed on exit.
 */
export function acquireDataDirLock(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'sdcs.pid');
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (pid && pid !== process.pid && alive(pid)) {
      throw new ConfigError(
        `the embedded database in ${dataDir} is in use by process ${pid}; stop it first, or use DATABASE_URL`,
      );
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
  }
  writeFileSync(file, String(process.pid));
  process.once('exit', () => {
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file);
    } catch {
      // already gone
    }
  });
}
