import { createActivityDefinition } from '../../helpers/factories.ts';
import type { SecurityCase } from '../matrix.ts';

const body = (name = 'Matrix definition') => ({
  name,
  uiCode: '',
  calcCode: 'return inputs.amount * 2',
  inputs: [{ name: 'amount', type: 'number', required: true }],
});

/** Definitions are organization-wide configuration: no site scope to prepare. */
export const cases: SecurityCase[] = [
  {
    method: 'GET',
    route: '/activity-definitions',
    prepare: async () => ({ url: '/activity-definitions' }),
  },
  {
    method: 'POST',
    route: '/activity-definitions',
    prepare: async () => ({ url: '/activity-definitions', body: body() }),
  },
  {
    method: 'GET',
    route: '/activity-definitions/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/activity-definitions/${await createActivityDefinition(t, tenant.organizationId)}`,
    }),
  },
  {
    method: 'PUT',
    route: '/activity-definitions/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/activity-definitions/${await createActivityDefinition(t, tenant.organizationId)}`,
      body: body('Renamed'),
    }),
  },
  {
    method: 'DELETE',
    route: '/activity-definitions/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/activity-definitions/${await createActivityDefinition(t, tenant.organizationId)}`,
    }),
  },
];
