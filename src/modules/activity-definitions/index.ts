/** The activity-definitions module's front door: what other modules (and the composition root) may use. */
export { activityInputIssues } from './activity-definitions.inputs.ts';
export { activityDefinitionsRoutes } from './activity-definitions.routes.ts';
export type { ActivityDefinition } from './activity-definitions.schemas.ts';
export { getDefinitionForCalculation } from './activity-definitions.service.ts';
