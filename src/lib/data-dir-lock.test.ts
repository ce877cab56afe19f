import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDataDirLock } from './data-dir-lock.ts';

const idle = () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });

describe('the data directory lock', () => {
  it('is taken right after its previous owner was killed with SIGKILL (still exiting)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdcs-lock-'));
    const previous = idle();
    await new Promise((r) => previous.once('spawn', r));
    writeFileSync(join(dir, 'sdcs.pid'), String(previous.pid));
    previous.kill('SIGKILL');
    // At once: the killed process has not been reaped yet.
    await acquireDataDirLock(dir);
    expect(readFileSync(join(dir, 'sdcs.pid'), 'utf8')).toBe(String(process.pid));
  });

  it('refuses while another live process holds it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdcs-lock-'));
    const owner = idle();
    await new Promise((r) => owner.once('spawn', r));
    writeFileSync(join(dir, 'sdcs.pid'), String(owner.pid));
    try {
      await expect(acquireDataDirLock(dir, { waitMs: 200 })).rejects.toThrow(/in use by process/);
    } finally {
      owner.kill('SIGKILL');
    }
  });

  it('ignores a pid file left by a process that is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdcs-lock-'));
    const gone = idle();
    await new Promise((r) => gone.once('exit', r).kill('SIGKILL'));
    writeFileSync(join(dir, 'sdcs.pid'), String(gone.pid));
    await acquireDataDirLock(dir, { waitMs: 0 });
    expect(readFileSync(join(dir, 'sdcs.pid'), 'utf8')).toBe(String(process.pid));
  });
});
