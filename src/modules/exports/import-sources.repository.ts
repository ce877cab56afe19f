import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

/** What an import wrote into one value slot, and from which of its rows. */
export interface ImportedSlot {
  form: { id: string };
  site: { id: string };
  year: number;
  periodUnit: number;
  element: { id: string };
  rows: { sheet: string; rowIndex: number }[];
}

/**
 * Records which import run (and rows) wrote each value of `slots`, in the import's transaction
 * after its values are written: only values written by this transaction (recorded_at = now())
 * are named. The export shows the run while the value's recorded_at is still this one.
 */
export async function recordImportSources(
  tx: Tx,
  organizationId: string,
  runId: string,
  slots: readonly ImportedSlot[],
): Promise<void> {
  if (slots.length === 0) return;
  const merged = new Map<
    string,
    {
      form_id: string;
      site_id: string;
      year: number;
      element_id: string;
      period_unit: number;
      rows: ImportedSlot['rows'];
    }
  >();
  for (const s of slots) {
    const key = `${s.form.id}|${s.site.id}|${s.year}|${s.element.id}|${s.periodUnit}`;
    const known = merged.get(key);
    if (known) known.rows.push(...s.rows);
    else
      merged.set(key, {
        form_id: s.form.id,
        site_id: s.site.id,
        year: s.year,
        element_id: s.element.id,
        period_unit: s.periodUnit,
        rows: [...s.rows],
      });
  }
  // Each slot's value is probed by its keys (form-site, submission, then the value's unique key): a
  // join planned from the recordset's unknown size read every value of the organization (0.5-0.8 s
  // of a 10,000-row import, growing with the organization). What is left is mostly the upsert of
  // the 10,000 rows and their foreign-key checks.
  await sql`
    insert into value_import_sources (organization_id, value_id, run_id, rows, recorded_at)
    select v.organization_id, v.id, ${runId}::uuid, d.rows, v.recorded_at
      from jsonb_to_recordset(${JSON.stringify([...merged.values()])}::jsonb)
           as d(form_id uuid, site_id uuid, year int, element_id uuid, period_unit int, rows jsonb)
      cross join lateral (
        select s.id from form_sites fs
          join form_submissions s on s.organization_id = fs.organization_id and s.form_site_id = fs.id
         where fs.organization_id = ${organizationId} and fs.form_id = d.form_id
           and fs.site_id = d.site_id and fs.year = d.year
        offset 0) s
      cross join lateral (
        select v.organization_id, v.id, v.recorded_at, v.deleted_at from form_element_submissions v
         where v.organization_id = ${organizationId} and v.form_submission_id = s.id
           and v.element_id = d.element_id and v.period_unit = d.period_unit and v.recorded_at = now()
        offset 0) v
     -- Outside the probe, so that no partial index of live values (by element across the
     -- organization's sites) is a candidate for it: the unique key is.
     where v.deleted_at is null
    on conflict (organization_id, value_id)
    do update set run_id = excluded.run_id, rows = excluded.rows, recorded_at = excluded.recorded_at`.execute(
    tx,
  );
}
