/** The datasets module's front door: what other modules (and the composition root) may use. */
export { lookupCoefficient } from './coefficients.repository.ts';
export { datasetItemsRoutes } from './dataset-items.routes.ts';
export { neutralizeCell } from './datasets.csv.ts';
export { datasetsRoutes } from './datasets.routes.ts';
