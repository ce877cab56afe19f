import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, badRequest, type Issue, invalidField, notFound } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, siteScope } from '../access/index.ts';
import { lockedSlots } from '../form-locks/index.ts';
import { forms } from '../forms/index.ts';
import { sites } from '../sites/index.ts';
import { formSitesRepository as repo } from './form-sites.repository.ts';
import type { FormSitesQuery, SetFormSitesBody } from './form-sites.schemas.ts';

/**
 * Makes, for every listed year, the form's active sites exactly `siteIds` — within the
 * caller's sites: a manager replaces the set on the sites they manage and leaves the others'
 * sites as they are (they cannot even see them); for an owner that is every site. Removed
 * triples are deactivated (their data hidden, not deleted) and re-added ones revived. Every
 * site added must be one the caller manages.
 */
export async function setFormSites(tx: Tx, caller: Caller, body: SetFormSitesBody): Promise<void> {
  const org = caller.organizationId;
  // Locking the form serializes concurrent changes of its sites.
  const form = isUuid(body.formId) ? await forms.find(tx, org, body.formId, 'update') : undefined;
  if (!form) throw notFound('Form');

  const siteIds = [...new Set(body.siteIds)];
  const years = [...new Set(body.years)];
  const known = await sites.existing(tx, org, siteIds.filter(isUuid));
  const issues: Issue[] = [];
  body.siteIds.forEach((id, i) => {
    if (!known.has(id))
      issues.push({ path: `siteIds.${i}`, message: `siteIds.${i} is not a site of this organization` });
  });
  if (issues.length > 0) throw badRequest('Unknown sites', issues);
  if (years.length === 0) return;

  const scope = await siteScope(tx, caller);
  const wanted = new Set(siteIds);
  const current = await repo.active(tx, org, form.id, years);
  const activeNow = new Set(current.map((r) => `${r.site_id}|${r.year}`));
  const removed = current.filter((r) => !wanted.has(r.site_id) && policy.canReadSite(scope, r.site_id));
  const added = years.flatMap((year) =>
    siteIds.filter((siteId) => !activeNow.has(`${siteId}|${year}`)).map((siteId) => ({ siteId, year })),
  );

  const touched = new Set([...added.map((a) => a.siteId), ...removed.map((r) => r.site_id)]);
  for (const siteId of touched) {
    authorize(
      policy.canManageSite(caller, scope, siteId),
      'Changing where a form is active needs manager rights on every site added or removed',
    );
  }
  // A lock covers what was reported: the form cannot leave a locked (site, year).
  await assertNotLocked(tx, org, form.id, removed, years);
  await repo.deactivate(
    tx,
    org,
    removed.map((r) => r.id),
  );
  await repo.activate(tx, org, form.id, added);
}

/** Active triples on the sites the caller may read. */
export async function listFormSites(tx: Tx, caller: Caller, query: FormSitesQuery) {
  const org = caller.organizationId;
  if (query.formId && !(await forms.find(tx, org, query.formId))) {
    throw invalidField('formId', 'formId is not a form of this organization');
  }
  if (query.siteId && (await sites.existing(tx, org, [query.siteId])).size === 0) {
    throw invalidField('siteId', 'siteId is not a site of this organization');
  }
  const rows = await repo.list(tx, org, await siteScope(tx, caller), query);
  return rows.map((r) => ({ id: r.id, formId: r.form_id, siteId: r.site_id, year: r.year }));
}

/**
 * Refuses (400) deactivating a (site, year) that a live lock of the form covers, in whole or in
 * part: its locked figures would drop out of every indicator. One issue per pair, naming the lock.
 */
async function assertNotLocked(
  tx: Tx,
  org: string,
  formId: string,
  removed: { site_id: string; year: number }[],
  years: number[],
): Promise<void> {
  const pairs = removed.map((r) => ({ siteId: r.site_id, year: r.year }));
  const locks = await lockedSlots(
    tx,
    org,
    pairs.map(({ siteId, year }) => ({ formId, siteId, year, period: null })),
  );
  if (locks.length === 0) return;
  const issues = locks.map((lock) => {
    const { year } = pairs[lock.index]!;
    const path = `years.${years.indexOf(year)}`;
    const period =
      lock.lockPeriodUnit === null ? `all of ${year}` : `period ${lock.lockPeriodUnit} of ${year}`;
    const sites = lock.lockSiteId === null ? 'all sites' : lock.siteName;
    const day = lock.lockedAt.toISOString().slice(0, 10);
    return {
      path,
      message: `${path}: "${lock.formName}" cannot be deactivated at ${lock.siteName} in ${year}: its figures are locked by lock ${lock.lockId} (${period}, ${sites}, by ${lock.lockedBy} on ${day}); a manager must unlock it first`,
    };
  });
  throw badRequest('The period is locked', issues);
}
