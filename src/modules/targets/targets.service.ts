import type { Tx } from '../../db/client.ts';
import type { Caller, Viewer } from '../../domain/caller.ts';
import { authorize, badRequest, type Issue, invalidField, notFound } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { coversOrganization, policy, siteScope } from '../access/index.ts';
import { sites } from '../sites/index.ts';
import { presentTarget, type TargetRow } from './targets.present.ts';
import { targetsRepository as repo, type TargetFields } from './targets.repository.ts';
import type {
  CreateTargetBody,
  Target,
  TargetEntry,
  TargetEntryInput,
  UpdateTargetBody,
} from './targets.schemas.ts';

/** An entry as stored and answered: `period` from which of month or quarter is set. */
export function entryOf(input: TargetEntryInput): TargetEntry {
  const month = input.month ?? null;
  const quarter = input.quarter ?? null;
  return {
    year: input.year,
    targetValue: input.targetValue,
    siteId: input.siteId ?? null,
    month,
    quarter,
    period: month !== null ? 'MONTHLY' : quarter !== null ? 'QUARTERLY' : 'YEARLY',
    type: input.type ?? 'ABSOLUTE',
  };
}

/** Checks fields that JSON Schema cannot: month xor quarter, finite values, sites in scope. */
async function check(tx: Tx, caller: Caller, fields: TargetFields): Promise<void> {
  const issues: Issue[] = [];
  const issue = (path: string, message: string) => issues.push({ path, message: `${path} ${message}` });
  if (fields.baselineMonth !== null && fields.baselineQuarter !== null)
    issue('baselineQuarter', 'cannot be given with baselineMonth');
  if ((fields.baselineMonth !== null || fields.baselineQuarter !== null) && fields.baselineYear === null)
    issue('baselineYear', 'is required with baselineMonth or baselineQuarter');
  fields.targetEntries.forEach((e, i) => {
    if (e.month !== null && e.quarter !== null)
      issue(`targetEntries.${i}.quarter`, 'cannot be given with month');
    if (!Number.isFinite(e.targetValue)) issue(`targetEntries.${i}.targetValue`, 'must be a finite number');
  });
  const siteIds = [...new Set(fields.targetEntries.flatMap((e) => (e.siteId ? [e.siteId] : [])))];
  const existing = await sites.existing(tx, caller.organizationId, siteIds);
  fields.targetEntries.forEach((e, i) => {
    if (e.siteId && !existing.has(e.siteId))
      issue(`targetEntries.${i}.siteId`, 'is not a site of this organization');
  });
  if (issues.length > 0) throw badRequest(issues[0]!.message, issues);
  const scope = await siteScope(tx, caller);
  authorize(
    siteIds.every((id) => policy.canReadSite(scope, id)),
    'A target entry names a site outside your sites',
  );
}

const targetNotFound = () => notFound('Target');

async function find(tx: Tx, caller: Caller, id: string): Promise<TargetRow> {
  const row = isUuid(id) ? await repo.find(tx, caller.organizationId, id) : undefined;
  if (!row) throw targetNotFound();
  return row;
}

/**
 * What of a target the caller may read (decision 167): owners and members whose sites cover the
 * whole organization read every entry; a member limited to some sites reads the entries of their
 * sites (and the sites under them) only: not another site's figures, nor the organization's
 * (entries without a site), as indicators give them no figure of the whole organization either.
 * The target itself (title, baseline, metadata) belongs to an organization-wide indicator and is
 * read by every member.
 */
async function readableEntries(
  tx: Tx,
  viewer: Viewer,
): Promise<(entries: readonly TargetEntry[]) => TargetEntry[]> {
  // A public dashboard link shows what its publisher chose for the whole organization.
  if (!('role' in viewer)) return (entries) => [...entries];
  const scope = await siteScope(tx, viewer);
  if (await coversOrganization(tx, viewer, scope)) return (entries) => [...entries];
  return (entries) => entries.filter((e) => e.siteId !== null && policy.canReadSite(scope, e.siteId));
}

/**
 * The targets of an indicator (all of the organization's when null) as `viewer` may read them:
 * each with only the entries of sites the viewer may read (decision 167).
 */
export async function readableTargets(tx: Tx, viewer: Viewer, indicatorId: string | null) {
  const readable = await readableEntries(tx, viewer);
  return (await repo.list(tx, viewer.organizationId, indicatorId)).map((row) => ({
    ...row,
    target_entries: readable(row.target_entries as TargetEntry[]),
  }));
}

/** The target as `caller` may read it: its entries limited to the caller's sites. */
async function presentFor(tx: Tx, caller: Caller, rows: TargetRow[]): Promise<Target[]> {
  const readable = await readableEntries(tx, caller);
  return rows
    .map(presentTarget)
    .map((target) => ({ ...target, targetEntries: readable(target.targetEntries) }));
}

export async function listTargets(
  tx: Tx,
  caller: Caller,
  indicatorId: string | undefined,
): Promise<Target[]> {
  if (
    indicatorId !== undefined &&
    !(isUuid(indicatorId) && (await repo.indicatorExists(tx, caller.organizationId, indicatorId)))
  )
    throw invalidField('indicatorId', 'indicatorId is not an indicator of this organization');
  return presentFor(tx, caller, await repo.list(tx, caller.organizationId, indicatorId ?? null));
}

export async function getTarget(tx: Tx, caller: Caller, id: string): Promise<Target> {
  const [target] = await presentFor(tx, caller, [await find(tx, caller, id)]);
  return target!;
}

export const TARGETS_ORGANIZATION_WIDE =
  'Targets belong to indicators of the whole organization: only owners and managers of all its sites can create, change or delete them';

/**
 * A target belongs to an indicator of the whole organization (and its entries without a site are
 * the organization's), so creating, changing and deleting one is for owners and managers whose
 * sites cover the whole organization (decision 166).
 */
async function authorizeOrganizationWide(tx: Tx, caller: Caller): Promise<void> {
  authorize(await coversOrganization(tx, caller), TARGETS_ORGANIZATION_WIDE);
}

export async function createTarget(tx: Tx, caller: Caller, body: CreateTargetBody): Promise<Target> {
  await authorizeOrganizationWide(tx, caller);
  if (!(await repo.indicatorExists(tx, caller.organizationId, body.indicatorId)))
    throw invalidField('indicatorId', 'indicatorId is not an indicator of this organization');
  const fields: TargetFields = {
    title: body.title,
    baselineYear: body.baselineYear ?? null,
    baselineMonth: body.baselineMonth ?? null,
    baselineQuarter: body.baselineQuarter ?? null,
    metadata: body.metadata ?? {},
    targetEntries: (body.targetEntries ?? []).map(entryOf),
  };
  await check(tx, caller, fields);
  const id = await repo.insert(tx, caller.organizationId, body.indicatorId, fields);
  return getTarget(tx, caller, id);
}

export async function updateTarget(
  tx: Tx,
  caller: Caller,
  id: string,
  body: UpdateTargetBody,
): Promise<Target> {
  await authorizeOrganizationWide(tx, caller);
  const current = presentTarget(await find(tx, caller, id));
  const fields: TargetFields = {
    title: body.title ?? current.title,
    baselineYear: body.baselineYear === undefined ? current.baselineYear : body.baselineYear,
    baselineMonth: body.baselineMonth === undefined ? current.baselineMonth : body.baselineMonth,
    baselineQuarter: body.baselineQuarter === undefined ? current.baselineQuarter : body.baselineQuarter,
    metadata: body.metadata ?? current.metadata,
    targetEntries: body.targetEntries ? body.targetEntries.map(entryOf) : current.targetEntries,
  };
  await check(tx, caller, fields);
  await repo.update(tx, caller.organizationId, current.id, fields);
  return getTarget(tx, caller, current.id);
}

export async function removeTarget(tx: Tx, caller: Caller, id: string): Promise<Target> {
  await authorizeOrganizationWide(tx, caller);
  const row = await find(tx, caller, id);
  await repo.remove(tx, caller.organizationId, row.id);
  return presentTarget(row);
}
