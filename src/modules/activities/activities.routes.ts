import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { callerOf } from '../../http/auth.ts';
import { clientGone, tenantRun } from '../../http/request-scope.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { ActivityHistoryEntry, activityHistory } from './activities.history.ts';
import { markNoActivity, unmarkNoActivity } from './activities.markers.ts';
import { recalculateDefinition } from './activities.recalculate.ts';
import {
  ActivitiesQuery,
  ActivityPage,
  ActivityParams,
  MarkerBody,
  MarkerResult,
  PatchActivityBody,
  PatchActivityResult,
  RecalculateResult,
} from './activities.schemas.ts';
import { type ActivitiesDeps, listActivities, patchActivity } from './activities.service.ts';

const TAGS = ['Activities'];
export const activitiesRoutes: FastifyPluginAsyncTypebox<Services> = async (app, { pipeline, config }) => {
  // Writes run the values engine's slot guards; a calculation's budget per request (SDCS_CALC_REQUEST_BUDGET_MS).
  const deps: ActivitiesDeps = { guards: pipeline.guards, limits: { budgetMs: config.calcRequestBudgetMs } };
  app.get(
    '/activities',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'activities.list',
        tags: TAGS,
        summary: 'List the activities of an ACTIVITY element on the sites you can read',
        description:
          'Name the element by its form and key. siteIds, years and periodUnits filter (comma-separated or repeated). Ordered by site name (case-insensitive, then byte order), site id, year, period and the order of entry in the value: a total order, so pages neither overlap nor skip, and `pagination.total` counts every activity matching the filters. An unknown form or key is a 404; a site of the organization you cannot read is a 403. `noActivity` lists the periods marked as having no activity under the same filters.',
        querystring: ActivitiesQuery,
        response: { 200: ActivityPage, ...errors(400, 401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => listActivities(tx, caller, request.query)),
  );

  app.patch(
    '/activities/:activityId',
    {
      config: { minRole: 'COLLECTOR' },
      schema: {
        operationId: 'activities.update',
        tags: TAGS,
        summary: 'Change some inputs of an activity and calculate it again (collectors)',
        description:
          'Sent input fields replace the stored ones, fields not sent are kept, null clears a field. The merged input is checked against the activity definition and calculated again; a failed calculation is a 400 and changes nothing. The value holding the activity becomes COMPLETED again.',
        params: ActivityParams,
        body: PatchActivityBody,
        response: { 200: PatchActivityResult, ...errors(400, 401, 403, 404, 409) },
      },
    },
    (request, reply) =>
      patchActivity(
        deps,
        tenantRun(request),
        callerOf(request),
        request.params.activityId,
        request.body,
        clientGone(request, reply),
      ),
  );

  app.get(
    '/activities/:activityId/history',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'activities.history',
        tags: TAGS,
        summary: 'Every change of an activity: who, when, before and after',
        description:
          'Creations, input changes, recalculations and deletions of the activity, oldest first. Readers of its site may see it; an activity that is no longer stored is a 404 (the history of the value that held it stays at /form-submissions/values/{id}/history).',
        params: ActivityParams,
        response: { 200: Type.Array(ActivityHistoryEntry), ...errors(401, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => activityHistory(tx, caller, request.params.activityId)),
  );

  app.post(
    '/activities/no-activity/mark',
    {
      config: { minRole: 'COLLECTOR' },
      schema: {
        operationId: 'activities.markNoActivity',
        tags: TAGS,
        summary: 'Mark a period of an ACTIVITY element as having no activity (collectors)',
        description:
          'Says “nothing to report” for the element on the site and period, which is different from data not entered yet. Marking again answers the same marker. A period that has activities cannot be marked; writing activities later removes the marker.',
        body: MarkerBody,
        response: { 200: MarkerResult, ...errors(400, 401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => markNoActivity(deps, tx, caller, request.body)),
  );

  app.post(
    '/activities/no-activity/unmark',
    {
      config: { minRole: 'COLLECTOR' },
      schema: {
        operationId: 'activities.unmarkNoActivity',
        tags: TAGS,
        summary: 'Remove the no-activity marker of a period (collectors)',
        description:
          'Answers the removed marker’s id. Idempotent like marking: a period that is not marked answers 200 with the same id.',
        body: MarkerBody,
        response: { 200: MarkerResult, ...errors(400, 401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => unmarkNoActivity(deps, tx, caller, request.body)),
  );

  app.post(
    '/activity-definitions/:id/recalculate',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'activityDefinitions.recalculate',
        tags: ['Activity definitions'],
        summary: 'Calculate every activity of the definition on your sites again (managers)',
        description:
          'Runs the current calcCode over the activities of this definition on the sites you may manage: all of the organization’s for owners, those of your sites for a manager limited to some sites (the counts of the answer are of those alone; other sites keep their values). In batches of 200 (each batch is calculated, then written in a transaction of its own). Activities whose calculation fails keep their value and are counted (the first 100 listed); changed values are recorded in the activities’ history.',
        params: IdParams,
        response: { 200: RecalculateResult, ...errors(401, 403, 404, 409) },
      },
    },
    (request, reply) =>
      recalculateDefinition(
        deps,
        tenantRun(request),
        callerOf(request),
        request.params.id,
        clientGone(request, reply),
      ),
  );
};
