import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors, IdParams } from '../../http/schemas.ts';
import {
  CreateDashboardBody,
  CreateWidgetBody,
  Dashboard,
  DashboardViewSchema,
  DashboardWithWidgets,
  UpdateDashboardBody,
  UpdateWidgetBody,
  WidgetAnswer,
  WidgetParams,
} from './dashboards.schemas.ts';
import {
  createDashboard,
  createWidget,
  getDashboard,
  listDashboards,
  removeDashboard,
  removeWidget,
  updateDashboard,
  updateWidget,
} from './dashboards.service.ts';
import './dashboards.usage.ts';
import type { Services } from '../../http/services.ts';
import { memberView } from './dashboards.view.ts';

const TAGS = ['Dashboards'];
const FIELDS =
  'globalFilter: statuses among COMPLETED, APPROVED, REJECTED; years 1900-2200 with startYear ≤ endYear; days YYYY-MM-DD with startDate ≤ endDate; siteIds sites of the organization. publicAccessEmails are e-mail addresses, publicAccessDomains domains such as `example.com`. A password is stored as an argon2id hash and never answered (`hasPassword`); null removes it. A member limited to some sites may make a dashboard public only when its filter names sites, all within theirs (403 otherwise).';

export const dashboardsRoutes: FastifyPluginAsyncTypebox<Services> = async (app) => {
  app.post(
    '/dashboards',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'dashboards.create',
        tags: TAGS,
        summary: 'Create a dashboard (managers and owners)',
        description: `name is required; every other field optional (private by default). ${FIELDS}`,
        body: CreateDashboardBody,
        response: { 200: Dashboard, ...errors(400, 401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => createDashboard(tx, caller, request.body)),
  );

  app.get(
    '/dashboards',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'dashboards.list',
        tags: TAGS,
        summary: 'List the organization’s dashboards (every member)',
        description:
          'Sorted by `order`, then creation. `isPublic` marks the dashboards anyone may open by link.',
        response: { 200: Type.Array(Dashboard), ...errors(401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => listDashboards(tx, caller)),
  );

  app.get(
    '/dashboards/:id',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'dashboards.get',
        tags: TAGS,
        summary: 'Get a dashboard with its widgets (every member)',
        params: IdParams,
        response: { 200: DashboardWithWidgets, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getDashboard(tx, caller, request.params.id)),
  );

  app.get(
    '/dashboards/:id/data',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'dashboards.data',
        tags: TAGS,
        summary: 'Compute every widget of a dashboard (every member, within their sites)',
        description:
          'Each widget’s series over the dashboard’s filter, limited to the sites the caller may read: VALUE widgets their total, LINE, BAR and TABLE one point per period; targets beside them with `showTarget` (glide paths on yearly series, yearly targets split over months or quarters of summed indicators); each widget’s `issues` names the targets it cannot draw and why. CHILDREN breakdowns list the child sites as they are now, within the caller’s sites.',
        params: IdParams,
        response: { 200: DashboardViewSchema, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => memberView(tx, caller, request.params.id, app.clock())),
  );

  app.put(
    '/dashboards/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'dashboards.update',
        tags: TAGS,
        summary: 'Change a dashboard (managers and owners)',
        description: `Every field optional; a field sent replaces the stored one; description null clears it. Sending a password (or null), or changing publicAccessEmails or publicAccessDomains, ends every access grant issued before. ${FIELDS}`,
        params: IdParams,
        body: UpdateDashboardBody,
        response: { 200: Dashboard, ...errors(400, 401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => updateDashboard(tx, caller, request.params.id, request.body)),
  );

  app.delete(
    '/dashboards/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'dashboards.delete',
        tags: TAGS,
        summary: 'Delete a dashboard for good (managers and owners)',
        description:
          'Deletes the dashboard, its widgets and its access grants; its public link answers 404 from then on. Not reversible. Answers the deleted record.',
        params: IdParams,
        response: { 200: Dashboard, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => removeDashboard(tx, caller, request.params.id)),
  );

  const WIDGET_RULES =
    'type VALUE (a total), LINE, BAR or TABLE (one point per config.period: MONTHLY, QUARTERLY or YEARLY [YEARLY]); indicatorIds: 1 to 20 indicators of the organization; config.sites TOTAL, BREAKDOWN (one series per filter site) or CHILDREN (one per child site of the filter’s sites, looked up when the data is read); config.showTarget adds the indicator’s targets (yearly: a linear path from the baseline year’s actual value; monthly/quarterly: a yearly target split evenly when the indicator is a sum over time; otherwise the widget’s issues say why); config.decimals 0-10. On a public dashboard the answer says so (`dashboardIsPublic`, `notice`), and a member limited to some sites may add, change or remove its widgets only when its filter names sites, all within theirs (403 otherwise), as for changing the dashboard itself.';

  app.post(
    '/dashboards/:id/widgets',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'dashboards.widgets.create',
        tags: TAGS,
        summary: 'Add a widget to a dashboard (managers and owners)',
        description: WIDGET_RULES,
        params: IdParams,
        body: CreateWidgetBody,
        response: { 200: WidgetAnswer, ...errors(400, 401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => createWidget(tx, caller, request.params.id, request.body)),
  );

  app.put(
    '/dashboards/:id/widgets/:widgetId',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'dashboards.widgets.update',
        tags: TAGS,
        summary: 'Change a widget (managers and owners)',
        description: `A field sent replaces the stored one. ${WIDGET_RULES}`,
        params: WidgetParams,
        body: UpdateWidgetBody,
        response: { 200: WidgetAnswer, ...errors(400, 401, 403, 404) },
      },
    },
    (request) =>
      request.tenant((tx, caller) =>
        updateWidget(tx, caller, request.params.id, request.params.widgetId, request.body),
      ),
  );

  app.delete(
    '/dashboards/:id/widgets/:widgetId',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'dashboards.widgets.delete',
        tags: TAGS,
        summary: 'Remove a widget (managers and owners)',
        description:
          'Answers the removed widget. On a public dashboard, a member limited to some sites may remove widgets only when its filter names sites, all within theirs (403 otherwise).',
        params: WidgetParams,
        response: { 200: WidgetAnswer, ...errors(401, 403, 404) },
      },
    },
    (request) =>
      request.tenant((tx, caller) => removeWidget(tx, caller, request.params.id, request.params.widgetId)),
  );
};
