import { iso } from '../../domain/time.ts';
import type { Submission, ValueItem } from '../values/index.ts';
import type { submissionsRepository as repo } from './submissions.repository.ts';

export type SubmissionRow = NonNullable<Awaited<ReturnType<typeof repo.findSubmission>>>;

/** A submission row (with its form, site and year) and its values, as the API shows them. */
export function presentSubmission(r: SubmissionRow, values: ValueItem[]): Submission {
  return {
    id: r.id,
    organizationId: r.organization_id,
    formSiteId: r.form_site_id,
    formId: r.form_id,
    siteId: r.site_id,
    year: r.year,
    userId: r.user_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    deletedAt: null,
    values,
  };
}
