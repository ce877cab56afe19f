// The shapes of the service's answers the screens pass around, read from the generated OpenAPI
// types (src/api-types/openapi.d.ts): when the service's contract changes, the screens that read
// a changed field stop compiling.
import type { paths } from '../../../api-types/openapi.js';

type Ok<Operation> = Operation extends {
  responses: infer R;
}
  ? R extends { 200: { content: { 'application/json': infer B } } }
    ? B
    : R extends { 201: { content: { 'application/json': infer B } } }
      ? B
      : never
  : never;

/** The JSON body of a successful `method` on `path`. */
export type Answer<P extends keyof paths, M extends 'get' | 'post' | 'patch' = 'get'> = Ok<paths[P][M]>;
/** The JSON body `method` on `path` takes. */
export type Body<P extends keyof paths, M extends 'post' | 'patch' = 'post'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
/** The query parameters of `method` on `path`. */
export type Query<P extends keyof paths, M extends 'get' = 'get'> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;

type Item<List> = List extends readonly (infer I)[] ? I : never;

export type Me = Answer<'/api/v1/me'>;
export type Form = Answer<'/api/v1/forms/{id}'>;
export type FormElement = Item<Form['elements']>;
export type Unit = Item<Answer<'/api/v1/units'>>;
export type Site = Item<Answer<'/api/v1/sites'>>;
export type FormSite = Item<Answer<'/api/v1/form-sites'>>;
export type FormLock = Item<Answer<'/api/v1/form-locks'>>;
export type Submission = Item<Answer<'/api/v1/form-submissions'>['items']>;
export type StoredValue = Item<Submission['values']>;
export type Completeness = Answer<'/api/v1/completeness'>;
export type SiteCompleteness = Item<Completeness['items']>;
export type ActivityDefinition = Answer<'/api/v1/activity-definitions/{id}'>;
export type ActivityPage = Answer<'/api/v1/activities'>;
export type Media = Answer<'/api/v1/media/{id}'>;
export type HistoryEntry = Item<Answer<'/api/v1/form-submissions/values/{id}/history'>>;
export type QueuePage = Answer<'/api/v1/form-submissions/values'>;
export type QueueItem = Item<QueuePage['items']>;
export type QueueFilters = Query<'/api/v1/form-submissions/values'>;
export type SentValue = Item<Body<'/api/v1/form-submissions'>['values']>;
export type Adapter = Item<Answer<'/api/v1/source-adapter-definitions'>>;
export type ImportAnswer = Answer<'/api/v1/source-imports', 'post'>;
export type ImportRun = Answer<'/api/v1/source-imports/{runId}'>;
export type ImportIssue = Item<ImportRun['issues']['items']>;
export type CheckIssue = Item<NonNullable<Answer<'/api/v1/form-submissions/check', 'post'>['issues']>>;
