import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

/** A period that became complete, as the completeness refresh noted it (migration 0072). */
export interface CompletionRow {
  form_site_id: string;
  period_unit: number;
  site_id: string;
  form_id: string;
  year: number;
  status: 'COMPLETE' | 'NO_ACTIVITY';
  on_time: boolean;
  completed_at: Date;
}

/** A live value of a completed period (the figures its event carries). */
export interface PeriodValueRow {
  form_site_id: string;
  period_unit: number;
  id: string;
  element_id: string;
  element_key: string;
  value: unknown;
  numeric_value: number | string | null;
  selected_unit_id: string | null;
  status: string;
  recorded_at: Date;
}

/** The periods the completeness refresh noted as completed (decision 223), and their values. */
export const periodsRepository = {
  /**
   * Takes out the organization's noted completions, oldest first. Concurrent takers each get a row
   * at most once: a row another transaction deleted first is skipped once that one commits.
   */
  async take(tx: Tx, org: string): Promise<CompletionRow[]> {
    const result = await sql<CompletionRow & { id: string }>`
      DELETE FROM period_completions WHERE organization_id = ${org}
      RETURNING id, form_site_id, period_unit, site_id, form_id, year, status, on_time, completed_at`.execute(
      tx,
    );
    return result.rows.sort((a, b) => Number(a.id) - Number(b.id));
  },

  /** Organizations with noted completions left (the sweep's list). */
  async pendingOrganizations(tx: Tx): Promise<string[]> {
    const result = await sql<{ organization_id: string }>`
      SELECT DISTINCT organization_id FROM period_completions`.execute(tx);
    return result.rows.map((r) => r.organization_id);
  },

  /** The live values (not deleted) of these form-site periods, in the form's element order. */
  async values(tx: Tx, org: string, periods: readonly { formSiteId: string; periodUnit: number }[]) {
    const result = await sql<PeriodValueRow>`
      SELECT s.form_site_id, v.period_unit::integer AS period_unit, v.id, v.element_id, e.key AS element_key,
             v.value, v.numeric_value, v.selected_unit_id, v.status, v.recorded_at
        FROM unnest(${periods.map((p) => p.formSiteId)}::uuid[], ${periods.map((p) => p.periodUnit)}::integer[]) k(id, unit)
        JOIN form_submissions s ON s.organization_id = ${org} AND s.form_site_id = k.id
        JOIN form_element_submissions v ON v.organization_id = ${org} AND v.form_submission_id = s.id
                                       AND v.period_unit = k.unit AND v.deleted_at IS NULL
        JOIN form_elements e ON e.organization_id = ${org} AND e.id = v.element_id
       ORDER BY e.position, e.id`.execute(tx);
    return result.rows;
  },
};
