import { randomBytes } from 'node:crypto';
import type { SecurityCase } from '../matrix.ts';

export const cases: SecurityCase[] = [
  { method: 'GET', route: '/units', prepare: async () => ({ url: '/units' }) },
  {
    method: 'POST',
    route: '/units',
    prepare: async () => ({
      url: '/units',
      body: {
        symbol: `u${randomBytes(4).toString('hex')}`,
        name: 'matrix unit',
        dimension: 'count',
        factorToBase: 1,
      },
    }),
  },
];
