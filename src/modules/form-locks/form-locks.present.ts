import { iso } from '../../domain/time.ts';
import type { LockRow } from './form-locks.repository.ts';
import type { FormLock } from './form-locks.schemas.ts';

export function presentLock(row: LockRow): FormLock {
  return {
    id: row.id,
    formId: row.form_id,
    year: row.year,
    periodUnit: row.period_unit,
    siteId: row.site_id,
    siteName: row.site_name,
    createdBy: row.created_by,
    createdByName: row.created_by_name,
    createdAt: iso(row.created_at),
    unlockedBy: row.unlocked_by,
    unlockedByName: row.unlocked_by_name,
    unlockedAt: iso(row.unlocked_at),
  };
}
