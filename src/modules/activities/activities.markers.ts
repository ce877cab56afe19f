import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, invalidField } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, siteScope } from '../access/index.ts';
import { submissions } from '../submissions/index.ts';
import { runGuards } from '../values/index.ts';
import { emitCompletedPeriods } from '../webhooks/index.ts';
import { checkPeriodUnit, resolveActivityElement } from './activities.resolve.ts';
import type { MarkerBody } from './activities.schemas.ts';
import type { ActivitiesDeps } from './activities.service.ts';
import { markerIdOf, markersRepository as repo, type Slot } from './markers.repository.ts';

/**
 * The period a marker request names, checked like a submission: a live form and ACTIVITY
 * element, a site of the organization (400 otherwise) the caller may enter data for (403), a
 * period of the form's period type and an active form-site for the year (400).
 */
async function resolveSlot(tx: Tx, caller: Caller, body: MarkerBody) {
  const org = caller.organizationId;
  const element = await resolveActivityElement(tx, org, body.formId, body.key, 'invalid');
  const site = isUuid(body.siteId) ? await submissions.siteExists(tx, org, body.siteId) : undefined;
  if (!site) throw invalidField('siteId', 'siteId is not a site of this organization');
  const scope = await siteScope(tx, caller);
  authorize(policy.canWriteSiteData(caller, scope, site.id), 'You cannot enter data for this site');
  checkPeriodUnit(element.periodType, body.periodUnit);
  const formSite = await submissions.activeFormSite(tx, org, element.formId, site.id, body.year);
  if (!formSite) throw invalidField('year', `The form is not active on this site for ${body.year}`);
  const slot: Slot = {
    elementId: element.elementId,
    siteId: site.id,
    year: body.year,
    periodUnit: body.periodUnit,
  };
  return { formId: element.formId, formSiteId: formSite.id, slot };
}

const guardSlot = (formId: string, slot: Slot) => ({
  formId,
  siteId: slot.siteId,
  year: slot.year,
  period: slot.periodUnit,
});

/**
 * Marks a period as having no activity. Marking again answers the same marker; a period that
 * has activities cannot be marked (400): remove them first.
 */
export async function markNoActivity(deps: ActivitiesDeps, tx: Tx, caller: Caller, body: MarkerBody) {
  const { formId, formSiteId, slot } = await resolveSlot(tx, caller, body);
  await repo.lockFormSite(tx, formSiteId);
  await runGuards(deps.guards, tx, caller.organizationId, [guardSlot(formId, slot)]);
  if (await repo.slotHasActivities(tx, caller.organizationId, slot)) {
    throw invalidField(
      'periodUnit',
      'This period has activities; remove them before marking it as having no activity',
    );
  }
  const id = await repo.mark(tx, caller.organizationId, formId, slot, caller.userId);
  // A marker can complete its period (every expected element reported): decision 223.
  await emitCompletedPeriods(tx, caller.organizationId);
  return { success: true, id };
}

/**
 * Removes the marker of a period. Like marking, it is idempotent: a period that is not marked
 * (any more) answers 200 with the id its marker has (`markerIdOf`).
 */
export async function unmarkNoActivity(deps: ActivitiesDeps, tx: Tx, caller: Caller, body: MarkerBody) {
  const { formId, slot } = await resolveSlot(tx, caller, body);
  await runGuards(deps.guards, tx, caller.organizationId, [guardSlot(formId, slot)]);
  const id = await repo.unmark(tx, caller.organizationId, slot);
  return { success: true, id: id ?? markerIdOf(caller.organizationId, slot) };
}
