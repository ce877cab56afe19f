import type { SecurityCase } from '../matrix.ts';

// The exports name no record in their path: another tenant's form or site in a filter is a 400
// (see src/modules/exports/exports.test.ts), and rows are limited to the caller's organization.
export const cases: SecurityCase[] = [
  { method: 'GET', route: '/exports/values', prepare: async () => ({ url: '/exports/values?year=2025' }) },
  {
    method: 'GET',
    route: '/exports/activities',
    prepare: async () => ({ url: '/exports/activities?year=2025' }),
  },
  { method: 'GET', route: '/exports/history', prepare: async () => ({ url: '/exports/history?year=2025' }) },
  {
    method: 'GET',
    route: '/exports/audit-pack',
    prepare: async () => ({ url: '/exports/audit-pack?year=2025' }),
  },
  // Public: the key that verifies audit packs.
  { method: 'GET', route: '/exports/signing-key', prepare: async () => ({ url: '/exports/signing-key' }) },
];
