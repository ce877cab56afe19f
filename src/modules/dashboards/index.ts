/** The dashboards module's front door: what other modules (and the composition root) may use. */
export { publicDashboardsRoutes } from './dashboards.public.routes.ts';
export { publicHead } from './dashboards.public.ts';
export { dashboardsRoutes } from './dashboards.routes.ts';
