import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { expect, it } from 'vitest';

// Every installed package must declare support for every Node.js version the README promises, so
// that `npm ci` installs without engine warnings (and without surprises) on each of them.
const SUPPORTED = ['20.19.0', '22.13.0', '24.0.0'];
const lock = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; version?: string }>;
};

it.each(SUPPORTED)('every locked package supports Node %s', (version) => {
  const refusing = Object.entries(lock.packages)
    .filter(([, p]) => p.engines && !Array.isArray(p.engines) && p.engines.node)
    .filter(([, p]) => !semver.satisfies(version, (p.engines as { node: string }).node))
    .map(
      ([path, p]) =>
        `${path.replace(/^.*node_modules\//, '')}@${p.version}: node ${(p.engines as { node: string }).node}`,
    );
  expect(refusing).toEqual([]);
});
