import { iso } from '../../domain/time.ts';
import type { targetsRepository as repo } from './targets.repository.ts';
import type { Target, TargetEntry } from './targets.schemas.ts';

export type TargetRow = NonNullable<Awaited<ReturnType<typeof repo.find>>>;

export function presentTarget(row: TargetRow): Target {
  return {
    id: row.id,
    indicatorId: row.indicator_id,
    organizationId: row.organization_id,
    title: row.title,
    baselineYear: row.baseline_year,
    baselineMonth: row.baseline_month,
    baselineQuarter: row.baseline_quarter,
    metadata: row.metadata,
    targetEntries: row.target_entries as TargetEntry[],
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
