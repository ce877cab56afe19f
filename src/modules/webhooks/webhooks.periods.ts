import type { Database, Tx } from '../../db/client.ts';
import { groupBy } from '../../lib/group-by.ts';
import { iso } from '../../domain/time.ts';
import { emitEvent } from './webhooks.events.ts';
import { periodsRepository as repo } from './periods.repository.ts';
import { webhooksRepository } from './webhooks.repository.ts';

/**
 * Emits `period.completed` for every period of the organization that the completeness refresh
 * noted as having become complete (decision 223), in the caller's transaction: one event per
 * transition, carrying the period's ids, its status and its live values. The noted rows are taken
 * out whether or not an endpoint wants them, so an endpoint registered later hears only of later
 * completions.
 */
export async function emitCompletedPeriods(tx: Tx, organizationId: string): Promise<number> {
  const completed = await repo.take(tx, organizationId);
  if (completed.length === 0) return 0;
  const endpoints = await webhooksRepository.subscribed(tx, organizationId, 'period.completed');
  if (endpoints.length === 0) return completed.length;
  const values = groupBy(
    await repo.values(
      tx,
      organizationId,
      completed.map((c) => ({ formSiteId: c.form_site_id, periodUnit: c.period_unit })),
    ),
    (v) => `${v.form_site_id}:${v.period_unit}`,
  );
  for (const c of completed) {
    await emitEvent(tx, organizationId, 'period.completed', {
      formSiteId: c.form_site_id,
      formId: c.form_id,
      siteId: c.site_id,
      year: c.year,
      periodUnit: c.period_unit,
      status: c.status,
      onTime: c.on_time,
      completedAt: iso(c.completed_at),
      values: (values.get(`${c.form_site_id}:${c.period_unit}`) ?? []).map((v) => ({
        id: v.id,
        elementId: v.element_id,
        elementKey: v.element_key,
        value: v.value,
        numericValue: v.numeric_value === null ? null : Number(v.numeric_value),
        selectedUnitId: v.selected_unit_id,
        status: v.status,
        recordedAt: iso(v.recorded_at),
      })),
    });
  }
  return completed.length;
}

/** The recurring job that announces completions no write announced (decision 223). */
export const PERIODS_SWEEP_JOB = 'webhook.period-completions';
export const PERIODS_SWEEP_INTERVAL_MS = 60_000;

/**
 * Announces the completions noted by writes that do not announce them themselves (a form's
 * expected elements changed, a form-site activated, a bulk rebuild): each organization's in
 * a transaction of its own. Answers how many completions were taken.
 */
export async function sweepCompletedPeriods(database: Database): Promise<number> {
  const organizations = await database.system((tx) => repo.pendingOrganizations(tx));
  let taken = 0;
  for (const org of organizations) taken += await database.tenant(org, (tx) => emitCompletedPeriods(tx, org));
  return taken;
}
