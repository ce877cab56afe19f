import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config.ts';

/** How long a start waits for the previous owner of the directory to finish exiting. */
const EXIT_WAIT_MS = 5_000;
const POLL_MS = 50;

/**
 * Whether `pid` is a running process. A zombie (killed, exiting, not yet reaped by its parent)
 * holds no files any more and counts as gone.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state …"; the name may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (not Linux): trust kill(0)
  }
}

/**
 * The embedded database is one process's: a second process opening the same directory
 * would corrupt it. A pid file refuses that with a clear message and is removed on exit.
 * A process that was just killed (`kill -9`, a crash) can still be exiting when its
 * successor starts: the start waits up to `waitMs` for it to be gone before refusing.
 */
export async function acquireDataDirLock(
  dataDir: string,
  { waitMs = EXIT_WAIT_MS, purpose = 'stop it first, or use DATABASE_URL' } = {},
): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'sdcs.pid');
  let pid = 0;
  try {
    pid = Number(readFileSync(file, 'utf8').trim());
  } catch {
    // no pid file
  }
  if (pid && pid !== process.pid) {
    const deadline = Date.now() + waitMs;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
    if (alive(pid)) {
      throw new ConfigError(`the embedded database in ${dataDir} is in use by process ${pid}; ${purpose}`);
    }
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
