import { defineConfig } from 'vitest/config';

// Four projects (decision 198). `npm test` runs them all; `npm run test:unit` only the first.
// - unit: `*.unit.test.ts`, pure code, no database and no global set-up: seconds.
// - integration: the API on a real database (a copy of one migrated template per file), on PGlite
//   or, with DATABASE_URL, on PostgreSQL.
// - process: tests that start the service or a database as processes (crash, outage, backup, the
//   README's commands, the bundle).
// - browser: the web app and the dashboard page in Debian's Chromium.
const UNIT = ['src/**/*.unit.test.ts', 'test/**/*.unit.test.ts'];
const BROWSER = ['src/**/*.browser.test.ts', 'test/**/*.browser.test.ts'];
const PROCESS = [
  'test/outage.test.ts',
  'test/server.test.ts',
  'test/backup.test.ts',
  'test/source-imports.crash.test.ts',
  'test/webhooks.crash.test.ts',
  'test/verify-aggregates.test.ts',
  'test/readme*.test.ts',
  'test/typed-client.test.ts',
  'test/dashboard-page.test.ts',
  'src/lib/data-dir-lock.test.ts',
];
const ALL = ['src/**/*.test.ts', 'test/**/*.test.ts'];
const globalSetup = ['test/helpers/global-setup.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT } },
      {
        extends: true,
        test: { name: 'integration', include: ALL, exclude: [...UNIT, ...BROWSER, ...PROCESS], globalSetup },
      },
      { extends: true, test: { name: 'process', include: PROCESS, globalSetup } },
      { extends: true, test: { name: 'browser', include: BROWSER, globalSetup } },
    ],
  },
});
