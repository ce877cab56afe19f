import Type, { type Static, type TSchema } from 'typebox';
import { ActivityHistoryEntry } from '../../src/modules/activities/activities.history.ts';
import {
  ActivityPage,
  MarkerResult,
  PatchActivityResult,
  RecalculateResult,
} from '../../src/modules/activities/activities.schemas.ts';
import { ActivityDefinition } from '../../src/modules/activity-definitions/activity-definitions.schemas.ts';
import { MeResponse } from '../../src/modules/auth/auth.schemas.ts';
import {
  Dataset,
  DatasetImportResult,
  DatasetItem,
  ItemChange,
  ListedDatasetItem,
} from '../../src/modules/datasets/datasets.schemas.ts';
import { SigningKey } from '../../src/modules/exports/audit-pack.routes.ts';
import { Form } from '../../src/modules/forms/forms.schemas.ts';
import { Site, SiteImportResult as SitesImportResult } from '../../src/modules/sites/sites.schemas.ts';
import { SubmissionPage } from '../../src/modules/submissions/submissions.schemas.ts';
import {
  HistoryEntry,
  Submission,
  SubmitAnswer,
  ValueItem,
} from '../../src/modules/values/values.schemas.ts';

const Success = Type.Object({ success: Type.Boolean() });

/**
 * The 200 response schema of the routes the tests read typed answers from, keyed by
 * `METHOD /path` as the route declares it (without /api/v1). The same schema objects the routes
 * declare: `test/responses.test.ts` checks each against the served OpenAPI document.
 */
export const responses = {
  'GET /me': MeResponse,
  'PATCH /me': MeResponse,
  'GET /activities': ActivityPage,
  'PATCH /activities/:activityId': PatchActivityResult,
  'GET /activities/:activityId/history': Type.Array(ActivityHistoryEntry),
  'POST /activities/no-activity/mark': MarkerResult,
  'POST /activities/no-activity/unmark': MarkerResult,
  'POST /activity-definitions/:id/recalculate': RecalculateResult,
  'POST /activity-definitions': ActivityDefinition,
  'GET /activity-definitions/:id': ActivityDefinition,
  'DELETE /activity-definitions/:id': ActivityDefinition,
  'POST /form-submissions': SubmitAnswer,
  'GET /form-submissions': SubmissionPage,
  'GET /form-submissions/:id': Submission,
  'POST /form-submissions/values/:id/review': ValueItem,
  'GET /form-submissions/values/:id/history': Type.Array(HistoryEntry),
  'POST /forms': Form,
  'GET /forms/:id': Form,
  'GET /exports/signing-key': SigningKey,
  'PUT /forms/:id': Form,
  'PUT /form-sites': Success,
  'GET /sites': Type.Array(Site),
  'POST /sites': Site,
  'POST /sites/import': SitesImportResult,
  'GET /sites/:id': Site,
  'PATCH /sites/:id': Site,
  'DELETE /sites/:id': Success,
  'POST /datasets': Dataset,
  'GET /datasets': Type.Array(Dataset),
  'GET /datasets/:id': Dataset,
  'PUT /datasets/:id': Dataset,
  'DELETE /datasets/:id': Dataset,
  'POST /datasets/:id/import': DatasetImportResult,
  'POST /dataset-items': DatasetItem,
  'GET /dataset-items': Type.Array(ListedDatasetItem),
  'GET /dataset-items/:id': DatasetItem,
  'PUT /dataset-items/:id': DatasetItem,
  'DELETE /dataset-items/:id': DatasetItem,
  'GET /dataset-items/:id/history': Type.Array(ItemChange),
} satisfies Record<string, TSchema>;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type RouteKey = keyof typeof responses;

type PathOf<U extends string> = U extends `${infer P}?${string}` ? P : U;
type Split<S extends string> = S extends `${infer H}/${infer R}` ? [H, ...Split<R>] : [S];
/** A `:param` segment takes any one segment; other segments must be equal. */
type Fits<P extends string[], U extends string[]> = P extends [
  infer PH extends string,
  ...infer PR extends string[],
]
  ? U extends [infer UH extends string, ...infer UR extends string[]]
    ? PH extends `:${string}`
      ? Fits<PR, UR>
      : UH extends PH
        ? Fits<PR, UR>
        : false
    : false
  : U extends []
    ? true
    : false;
type RouteOf<M extends Method, U extends string> = {
  [K in RouteKey]: K extends `${M} ${infer P extends string}`
    ? Fits<Split<P>, Split<PathOf<U>>> extends true
      ? K
      : never
    : never;
}[RouteKey];

/**
 * The 200 body of `METHOD url` (url as called, with ids and query): the route's response schema
 * as a type. `unknown` when the url matches no route of the table (a plain `string` url included).
 */
export type ResponseOf<M extends Method, U extends string> = [RouteOf<M, U>] extends [never]
  ? unknown
  : Static<(typeof responses)[RouteOf<M, U>]>;
