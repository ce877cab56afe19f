import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, invalidField } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, siteScope } from '../access/index.ts';
import type { CsvSiteRow } from './sites.csv.ts';
import { sitePolicy } from './sites.policy.ts';
import type { NewSite } from './sites.repository.ts';
import { sitesRepository as repo } from './sites.repository.ts';
import type { ImportResultOut } from './sites.schemas.ts';
import { MESSAGES } from './sites.service.ts';

/** A stored site as an import sees it. */
export interface StoredSite {
  id: string;
  name: string;
  code: string | null;
}

/** What the planner may ask about the caller: which stored sites it sees, where it may add. */
export interface ImportAccess {
  canSee: (siteId: string) => boolean;
  canPlaceUnder: (parentId: string | null) => boolean;
}

export interface ImportPlan {
  /** The sites to insert, parents before children. */
  sites: NewSite[];
  errors: string[];
  logs: string[];
}

/** A parent reference: a stored site, another row of the file (by index), or a problem. */
type Parent = { stored: StoredSite } | { row: number } | { problem: string } | null;

const OK = 2;
const FAILED = 3;

/** Checks the caller may import into `organizationId` (MANAGER+, own organization only). */
export function authorizeImport(caller: Caller, organizationId: string): void {
  authorize(sitePolicy.mayWriteSites(caller), MESSAGES.managersOnly);
  // A body id that names nothing of the caller's is a 400, as everywhere else.
  if (organizationId.toLowerCase() !== caller.organizationId.toLowerCase()) {
    throw invalidField('organizationId', 'organizationId must be your own organization');
  }
}

/** Imports parsed rows in one transaction: one read of the tree, then multi-row inserts. */
export async function importSites(tx: Tx, caller: Caller, rows: CsvSiteRow[]): Promise<ImportResultOut> {
  const org = caller.organizationId;
  await repo.lockTree(tx, org);
  const scope = await siteScope(tx, caller);
  const stored = await repo.listForImport(tx, org);
  const plan = planImport(rows, stored, {
    canSee: (id) => policy.canReadSite(scope, id),
    canPlaceUnder: (parentId) => sitePolicy.canPlaceUnder(caller, scope, parentId),
  });
  await repo.insertMany(tx, org, plan.sites);
  return { success: plan.sites.length, failed: plan.errors.length, errors: plan.errors, logs: plan.logs };
}

/**
 * Decides, without touching the database, which rows become which sites. Parents are
 * resolved by id, then code, then name, among the stored sites the caller sees and the rows
 * of the file (earlier or later); a row fails when its parent fails, and rows whose parents
 * form a cycle all fail. The first row with a code claims it; later ones fail.
 */
export function planImport(rows: CsvSiteRow[], stored: StoredSite[], access: ImportAccess): ImportPlan {
  const problems = rows.map((r) => [...r.problems]);
  const ids = rows.map(() => randomUUID());
  const index = buildIndex(rows, stored, access, problems);
  const parents = rows.map((r, i) => resolveParent(r, i, index, access));
  parents.forEach((parent, i) => {
    if (parent && 'problem' in parent) problems[i]!.push(parent.problem);
  });
  const { state, depth } = settle(rows, parents, problems);

  const order = rows.map((_, i) => i).filter((i) => state[i] === OK);
  order.sort((a, b) => depth[a]! - depth[b]! || a - b);
  const sites = order.map((i): NewSite => {
    const r = rows[i]!;
    const parent = parents[i];
    const parentId =
      parent && 'stored' in parent ? parent.stored.id : parent && 'row' in parent ? ids[parent.row]! : null;
    const { name, code, latitude, longitude, address, metadata } = r;
    return { id: ids[i]!, parentId, name, code, latitude, longitude, address, metadata };
  });

  const errors: string[] = [];
  const logs: string[] = [];
  rows.forEach((r, i) => {
    if (state[i] !== OK) errors.push(`Row ${r.row}: ${problems[i]!.join('; ')}`);
    else
      logs.push(
        `Row ${r.row}: created site "${r.name}"${r.code ? ` (code ${r.code})` : ''}${under(parents[i]!, rows)}`,
      );
  });
  logs.push(`Created ${sites.length} of ${rows.length} site${rows.length === 1 ? '' : 's'}`);
  return { sites, errors, logs };
}

interface Index {
  storedById: Map<string, StoredSite>;
  /** lower-case code -> the stored site or row holding it */
  byCode: Map<string, { stored: StoredSite } | { row: number }>;
  /** lower-case name -> every stored site and row with that name */
  byName: Map<string, Array<{ stored: StoredSite } | { row: number }>>;
}

function buildIndex(
  rows: CsvSiteRow[],
  stored: StoredSite[],
  access: ImportAccess,
  problems: string[][],
): Index {
  const storedCodes = new Set<string>();
  const index: Index = { storedById: new Map(), byCode: new Map(), byName: new Map() };
  const addName = (name: string, ref: { stored: StoredSite } | { row: number }) => {
    const key = name.toLowerCase();
    const list = index.byName.get(key);
    if (list) list.push(ref);
    else index.byName.set(key, [ref]);
  };
  for (const site of stored) {
    if (site.code) storedCodes.add(site.code.toLowerCase());
    // Sites the caller cannot see cannot be named as parents (and are not revealed by ambiguity).
    if (!access.canSee(site.id)) continue;
    index.storedById.set(site.id, site);
    if (site.code) index.byCode.set(site.code.toLowerCase(), { stored: site });
    addName(site.name, { stored: site });
  }
  rows.forEach((r, i) => {
    if (r.name) addName(r.name, { row: i });
    if (!r.code) return;
    const key = r.code.toLowerCase();
    const holder = index.byCode.get(key);
    if (storedCodes.has(key)) problems[i]!.push(`code "${r.code}" is already used by an existing site`);
    else if (holder && 'row' in holder)
      problems[i]!.push(`code "${r.code}" is already used by row ${rows[holder.row]!.row}`);
    else index.byCode.set(key, { row: i });
  });
  return index;
}

function resolveParent(r: CsvSiteRow, i: number, index: Index, access: ImportAccess): Parent {
  const text = r.parent;
  let found: { stored: StoredSite } | { row: number } | undefined;
  if (!text) {
    return access.canPlaceUnder(null) ? null : { problem: 'only owners can create top-level sites' };
  }
  const lower = text.toLowerCase();
  const byId = isUuid(text) ? index.storedById.get(lower) : undefined;
  if (byId) found = { stored: byId };
  else found = index.byCode.get(lower);
  if (!found) {
    const named = index.byName.get(lower) ?? [];
    if (named.length > 1) {
      return {
        problem: `parent "${text}" is ambiguous: ${named.length} sites have that name; use a code or id`,
      };
    }
    found = named[0];
  }
  if (!found) return { problem: `parent "${text}" not found` };
  if ('row' in found) return found.row === i ? { problem: 'a site cannot be its own parent' } : found;
  return access.canPlaceUnder(found.stored.id)
    ? found
    : { problem: `you do not manage parent site "${found.stored.name}"` };
}

/**
 * Settles every row as OK or FAILED, following parent rows iteratively (files may hold long
 * chains): a row is OK when it has no problem and its parent is stored or an OK row.
 */
function settle(rows: CsvSiteRow[], parents: Parent[], problems: string[][]) {
  const UNSEEN = 0;
  const ON_PATH = 1;
  const state = new Uint8Array(rows.length);
  const depth = new Int32Array(rows.length);
  const parentRow = (i: number) => {
    const p = parents[i];
    return p && 'row' in p ? p.row : undefined;
  };
  for (let start = 0; start < rows.length; start++) {
    if (state[start] !== UNSEEN) continue;
    let path: number[] = [];
    let next: number | undefined = start;
    while (next !== undefined && state[next] === UNSEEN) {
      state[next] = ON_PATH;
      path.push(next);
      next = problems[next]!.length > 0 ? undefined : parentRow(next);
    }
    if (next !== undefined && state[next] === ON_PATH) {
      const cycle = path.slice(path.indexOf(next));
      const names = cycle
        .map((c) => rows[c]!.row)
        .sort((a, b) => a - b)
        .join(', ');
      for (const c of cycle) {
        problems[c]!.push(`parent references form a cycle (rows ${names})`);
        state[c] = FAILED;
      }
      path = path.slice(0, path.indexOf(next));
    }
    for (let k = path.length - 1; k >= 0; k--) {
      const i = path[k]!;
      const p = parentRow(i);
      if (problems[i]!.length > 0) state[i] = FAILED;
      else if (p === undefined) state[i] = OK;
      else if (state[p] === OK) {
        state[i] = OK;
        depth[i] = depth[p]! + 1;
      } else {
        problems[i]!.push(`parent row ${rows[p]!.row} was not imported`);
        state[i] = FAILED;
      }
    }
  }
  return { state, depth };
}

function under(parent: Parent, rows: CsvSiteRow[]): string {
  if (!parent || 'problem' in parent) return '';
  if ('stored' in parent) return ` under "${parent.stored.name}"`;
  const row = rows[parent.row]!;
  return ` under "${row.name}" (row ${row.row})`;
}
