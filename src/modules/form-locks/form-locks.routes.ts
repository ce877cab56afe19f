import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { webhookEvents } from '../webhooks/index.ts';
import { FormLock, LockBody, LocksQuery } from './form-locks.schemas.ts';
import { createLocks, deleteLock, listLocks } from './form-locks.service.ts';

const TAGS = ['Completeness'];
const RULES =
  'While a lock covers a (form, site, year, period), writes that would change its data are refused with a 400 naming the value and the lock: submissions of new, changed or deleted values and of ACTIVITY lists, activity changes, no-activity markers; recalculating a definition skips its activities there and reports them as `skipped`. Reviews (approve, reject) stay allowed.';

export const formLocksRoutes: FastifyPluginAsyncTypebox<Services> = async (app) => {
  app.post(
    '/form-locks',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'formLocks.create',
        tags: TAGS,
        summary: 'Lock a form’s year, or one period of it, against changes (managers)',
        description: `Locks the period (or the whole year without \`periodUnit\`) on each site of \`siteIds\` (sites you manage), or on every site of the organization without \`siteIds\` (owners only). Locking what is already locked keeps that lock. Answers the locks. ${RULES}`,
        body: LockBody,
        response: { 200: Type.Array(FormLock), ...errors(400, 401, 403) },
      },
    },
    (request) =>
      request.tenant(async (tx, caller) => {
        const { locks, created } = await createLocks(tx, caller, request.body);
        // An event for each lock this call made; a scope already locked was announced when it was.
        await webhookEvents.periodsLocked(tx, caller.organizationId, created);
        return locks;
      }),
  );

  app.delete(
    '/form-locks/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'formLocks.delete',
        tags: TAGS,
        summary: 'Unlock (managers of the lock’s site; owners for organization-wide locks)',
        description:
          'The lock stays on record with who unlocked it and when (`GET /form-locks?includeUnlocked=true`). Answers the lock as unlocked.',
        params: IdParams,
        response: { 200: FormLock, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => deleteLock(tx, caller, request.params.id)),
  );

  app.get(
    '/form-locks',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'formLocks.list',
        tags: TAGS,
        summary: 'The locks of a form (organization-wide ones and those of sites you can read)',
        description: RULES,
        querystring: LocksQuery,
        response: { 200: Type.Array(FormLock), ...errors(400, 401) },
      },
    },
    (request) => request.tenant((tx, caller) => listLocks(tx, caller, request.query)),
  );
};
