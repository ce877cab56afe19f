import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/client.ts';
import type { SiteAddress } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, badRequest, invalidField, notFound } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, type SiteScope, siteScope } from '../access/index.ts';
import { sitePolicy } from './sites.policy.ts';
import { presentSite } from './sites.present.ts';
import { sitesRepository as repo, type SiteChanges, type SiteRow } from './sites.repository.ts';
import type { CreateSiteInput, ListSitesFilter, SiteOut, UpdateSiteInput } from './sites.schemas.ts';
import { ADDRESS_FIELDS } from './sites.schemas.ts';

export const MESSAGES = {
  managersOnly: 'Only managers and owners can change sites',
  topLevel: 'Only owners can create, move or delete top-level sites',
  parent: 'You do not manage the parent site',
  site: 'You do not manage this site',
};

/** Trimmed address fields; blank ones are dropped. */
export function cleanAddress(address: SiteAddress | null | undefined): SiteAddress {
  const out: SiteAddress = {};
  for (const field of ADDRESS_FIELDS) {
    const value = address?.[field]?.trim();
    if (value) out[field] = value;
  }
  return out;
}

export async function listSites(tx: Tx, caller: Caller, filter: ListSitesFilter): Promise<SiteOut[]> {
  const scope = await siteScope(tx, caller);
  const { parentId } = filter;
  if (parentId !== undefined && !isUuid(parentId)) throw unknownSite('parentId');
  const rows = await repo.list(tx, caller.organizationId, scope, filter);
  // An empty answer must not hide a mistyped parent: name it, unless the caller can see it.
  if (parentId !== undefined && rows.length === 0 && !(await isVisible(tx, caller, scope, parentId))) {
    throw unknownSite('parentId');
  }
  return rows.map(presentSite);
}

export async function getSite(tx: Tx, caller: Caller, id: string): Promise<SiteOut> {
  const { site } = await visibleSite(tx, caller, id);
  return presentSite(site);
}

export async function createSite(tx: Tx, caller: Caller, input: CreateSiteInput): Promise<SiteOut> {
  authorize(sitePolicy.mayWriteSites(caller), MESSAGES.managersOnly);
  const org = caller.organizationId;
  await repo.lockTree(tx, org);
  const scope = await siteScope(tx, caller);
  const parentId = input.parentId?.toLowerCase() ?? null;
  if (parentId !== null && !(await isVisible(tx, caller, scope, parentId))) throw unknownSite('parentId');
  authorize(
    sitePolicy.canPlaceUnder(caller, scope, parentId),
    parentId === null ? MESSAGES.topLevel : MESSAGES.parent,
  );
  const row = await repo.insert(tx, org, {
    id: randomUUID(),
    parentId,
    name: cleanName(input.name),
    code: await availableCode(tx, org, input.code ?? null),
    latitude: input.latitude ?? null,
    longitude: input.longitude ?? null,
    address: cleanAddress(input.address),
    metadata: input.metadata ?? {},
  });
  return presentSite(row);
}

export async function updateSite(tx: Tx, caller: Caller, id: string, input: UpdateSiteInput) {
  const org = caller.organizationId;
  // Lock before reading: a concurrent move must not change the parent checked below.
  if (isUuid(id)) await repo.lockTree(tx, org);
  const { site, scope } = await visibleSite(tx, caller, id);
  authorize(sitePolicy.canEdit(caller, scope, site.id), MESSAGES.site);
  const changes: SiteChanges = {};
  const parentId = input.parentId === undefined ? undefined : (input.parentId?.toLowerCase() ?? null);
  if (parentId !== undefined && parentId !== site.parent_id) {
    changes.parentId = await checkedMove(tx, caller, scope, site, parentId);
  }
  if (input.name !== undefined) changes.name = cleanName(input.name);
  if (input.code !== undefined) changes.code = await availableCode(tx, org, input.code, site.id);
  if (input.latitude !== undefined) changes.latitude = input.latitude;
  if (input.longitude !== undefined) changes.longitude = input.longitude;
  if (input.address !== undefined) changes.address = cleanAddress(input.address);
  if (input.metadata !== undefined) changes.metadata = input.metadata;
  return presentSite(await repo.update(tx, org, id, changes));
}

export async function deleteSite(tx: Tx, caller: Caller, id: string): Promise<void> {
  const org = caller.organizationId;
  if (isUuid(id)) await repo.lockTree(tx, org);
  const { site, scope } = await visibleSite(tx, caller, id);
  authorize(
    sitePolicy.canDelete(caller, scope, { id: site.id, parentId: site.parent_id }),
    site.parent_id === null ? MESSAGES.topLevel : MESSAGES.parent,
  );
  const children = await repo.countChildren(tx, org, id);
  if (children > 0) {
    throw badRequest(
      `Site "${site.name}" has ${children} sub-site${children === 1 ? '' : 's'}; delete or move them first`,
    );
  }
  // Other modules' rows reference sites without cascading: check deferred keys now too.
  await repo.checkConstraintsNow(tx);
  try {
    await repo.remove(tx, org, id);
  } catch (error) {
    if ((error as { code?: string }).code === '23503') {
      throw badRequest(
        `Site "${site.name}" has data (such as form assignments, submissions or activities) and cannot be deleted`,
      );
    }
    throw error;
  }
}

/** The site named by a path id, if the caller may see it; otherwise 404 (never revealed). */
async function visibleSite(tx: Tx, caller: Caller, id: string): Promise<{ site: SiteRow; scope: SiteScope }> {
  if (!isUuid(id)) throw notFound('Site');
  const scope = await siteScope(tx, caller);
  if (!policy.canReadSite(scope, id.toLowerCase())) throw notFound('Site');
  const site = await repo.find(tx, caller.organizationId, id);
  if (!site) throw notFound('Site');
  return { site, scope };
}

/** True when `id` is a stored site of the caller's organization that the caller may see. */
async function isVisible(tx: Tx, caller: Caller, scope: SiteScope, id: string): Promise<boolean> {
  if (!isUuid(id) || !policy.canReadSite(scope, id.toLowerCase())) return false;
  // A non-owner's scope was read from the database in this transaction: it holds only stored sites.
  return scope.all ? repo.exists(tx, caller.organizationId, id) : true;
}

/** Checks a move of `site` under `parentId` and returns the new parent. */
async function checkedMove(
  tx: Tx,
  caller: Caller,
  scope: SiteScope,
  site: SiteRow,
  parentId: string | null,
): Promise<string | null> {
  if (parentId !== null && !(await isVisible(tx, caller, scope, parentId))) throw unknownSite('parentId');
  authorize(
    sitePolicy.canMove(caller, scope, site.parent_id, parentId),
    site.parent_id === null || parentId === null ? MESSAGES.topLevel : MESSAGES.parent,
  );
  if (parentId !== null && (await repo.lineage(tx, caller.organizationId, parentId)).includes(site.id)) {
    throw invalidField('parentId', 'A site cannot be moved under itself or one of its own sub-sites');
  }
  return parentId;
}

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalidField('name', 'name must not be blank');
  return trimmed;
}

/** A trimmed code that no other site of the organization uses (in any letter case). */
async function availableCode(tx: Tx, org: string, code: string | null, exceptId?: string) {
  if (code === null) return null;
  const trimmed = code.trim();
  if (!trimmed) throw invalidField('code', 'code must not be blank; send null to clear it');
  if (await repo.codeOwner(tx, org, trimmed, exceptId)) {
    throw invalidField('code', `code "${trimmed}" is already used by another site`);
  }
  return trimmed;
}

const unknownSite = (field: string) => invalidField(field, `${field} does not name a site you can access`);
