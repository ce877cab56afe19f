import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, invalidField, notFound } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, siteScope } from '../access/index.ts';
import { LAST_PERIOD } from '../completeness/index.ts';
import { forms } from '../forms/index.ts';
import { sites } from '../sites/index.ts';
import { presentLock } from './form-locks.present.ts';
import { formLocksRepository as repo } from './form-locks.repository.ts';
import type { FormLock, LockBody, LocksQuery } from './form-locks.schemas.ts';

/**
 * Locks a form's year, or one period of it, on sites the caller manages (MANAGER+), or on every
 * site (OWNER). Locking what is already locked keeps the existing lock; answers the locks.
 */
/** The live locks of the scopes asked for, and those of them this call made (`created`). */
export async function createLocks(
  tx: Tx,
  caller: Caller,
  body: LockBody,
): Promise<{ locks: FormLock[]; created: FormLock[] }> {
  const org = caller.organizationId;
  const form = await forms.find(tx, org, body.formId);
  if (!form) throw invalidField('formId', 'formId is not a form of this organization');
  const periodUnit = body.periodUnit ?? null;
  const last = LAST_PERIOD[form.period_type];
  if (periodUnit !== null && periodUnit > last) {
    throw invalidField('periodUnit', `periodUnit must be 1..${last} for a ${form.period_type} form`);
  }
  let siteIds: (string | null)[];
  if (body.siteIds) {
    const ids = [...new Set(body.siteIds.map((s) => s.toLowerCase()))];
    const known = await sites.existing(tx, org, ids);
    const unknown = ids.find((id) => !known.has(id));
    if (unknown) throw invalidField('siteIds', `siteIds: ${unknown} is not a site of this organization`);
    const scope = await siteScope(tx, caller);
    const foreign = ids.find((id) => !policy.canManageSite(caller, scope, id));
    authorize(
      foreign === undefined,
      `You cannot lock site ${foreign}: it is not one of the sites you manage`,
    );
    siteIds = ids;
  } else {
    authorize(policy.isOwner(caller), 'Only owners lock a form for the whole organization; name siteIds');
    siteIds = [null];
  }
  const { rows, created } = await repo.lock(
    tx,
    org,
    { formId: form.id, year: body.year, periodUnit, siteIds },
    caller.userId,
  );
  const locks = rows.map(presentLock);
  return { locks, created: locks.filter((lock) => created.has(lock.id)) };
}

/** Lifts a lock (MANAGER+ on its site, OWNER for an organization-wide one); recorded on the lock. */
export async function deleteLock(tx: Tx, caller: Caller, id: string): Promise<FormLock> {
  const org = caller.organizationId;
  const row = isUuid(id) ? await repo.find(tx, org, id) : undefined;
  const scope = await siteScope(tx, caller);
  if (!row || row.unlocked_at !== null || (row.site_id !== null && !policy.canReadSite(scope, row.site_id))) {
    throw notFound('Form lock');
  }
  if (row.site_id === null) {
    authorize(policy.isOwner(caller), 'Only owners unlock a lock covering the whole organization');
  } else {
    authorize(policy.canManageSite(caller, scope, row.site_id), 'You cannot unlock this site');
  }
  await repo.unlock(tx, org, row.id, caller.userId);
  const after = await repo.find(tx, org, row.id);
  return presentLock(after!);
}

/** The locks of a form: organization-wide ones and those of sites the caller can read. */
export async function listLocks(tx: Tx, caller: Caller, query: LocksQuery): Promise<FormLock[]> {
  const org = caller.organizationId;
  const form = isUuid(query.formId) ? await forms.find(tx, org, query.formId) : undefined;
  if (!form) throw invalidField('formId', 'formId is not a form of this organization');
  const scope = await siteScope(tx, caller);
  const rows = await repo.list(tx, org, form.id, query.includeUnlocked ?? false);
  return rows.filter((r) => r.site_id === null || policy.canReadSite(scope, r.site_id)).map(presentLock);
}
