import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import { type ReferencedItem, indicatorsRepository as repo } from './indicators.repository.ts';
import type { ExpressionPart } from './indicators.schemas.ts';

/**
 * Site-dependent coefficients: a `datasetItem` part named by key whose key has placeholders
 * taken from each site (`grid_{site.metadata.country}`, `{site.code}`). Such an indicator is
 * evaluated per group of sites that resolve every such key alike, and the groups are added up.
 */

const PLACEHOLDER = /\{([^{}]*)\}/g;
const KNOWN = /^site\.(code|metadata\.[A-Za-z0-9_-]+)$/;

/** Whether a datasetItem part's key has placeholders. */
export const isTemplate = (part: ExpressionPart) =>
  part.type === 'datasetItem' && (part.value.includes('{') || part.value.includes('}'));

/** What is wrong with a key's placeholders (null: nothing). */
export function templateProblem(key: string): string | null {
  const stripped = key.replace(PLACEHOLDER, '');
  if (stripped.includes('{') || stripped.includes('}')) return `"${key}" has an unmatched { or }`;
  for (const [, inner] of key.matchAll(PLACEHOLDER))
    if (!KNOWN.test(inner!))
      return `"{${inner}}" is not a placeholder (use {site.code} or {site.metadata.<field>})`;
  return null;
}

/** A site with what placeholders read: its code, metadata and parent. */
export interface SiteAttributes {
  id: string;
  name: string;
  code: string | null;
  parent_id: string | null;
  metadata: Record<string, unknown> | null;
}

/** A metadata field of the site, else of its nearest ancestor that has it. */
function metadataOf(site: SiteAttributes, field: string, byId: Map<string, SiteAttributes>): string | null {
  let current: SiteAttributes | undefined = site;
  for (let depth = 0; current && depth < 1000; depth++) {
    const value = current.metadata?.[field];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    current = current.parent_id ? byId.get(current.parent_id) : undefined;
  }
  return null;
}

/** The key a site looks for (null when a placeholder has no value for it). */
export function resolveKey(
  template: string,
  site: SiteAttributes,
  byId: Map<string, SiteAttributes>,
): string | null {
  let missing = false;
  const key = template.replace(PLACEHOLDER, (_, inner: string) => {
    const value =
      inner === 'site.code' ? site.code : metadataOf(site, inner.slice('site.metadata.'.length), byId);
    if (value === null || value === '') missing = true;
    return value ?? '';
  });
  return missing ? null : key;
}

/** A group of sites evaluated together: within `outer` (a requested site, or null), same keys. */
export interface SiteGroup {
  id: string;
  outer: string | null;
  sites: { id: string; name: string }[];
  /** `datasetId:template` → the key its sites look for (null: a placeholder has no value). */
  keys: Map<string, string | null>;
}

/** Everything a per-site evaluation needs besides the aggregates. */
export interface SiteGroups {
  groups: SiteGroup[];
  /** The coefficients the resolved keys name, by `datasetId:key`, as of the scope's year. */
  items: Map<string, ReferencedItem>;
  /** For the aggregate query: (group, site) pairs. */
  pairs: { groupIds: string[]; siteIds: string[] };
}

const refOf = (part: ExpressionPart) =>
  `${(part.metadata as { datasetId?: string } | undefined)?.datasetId ?? ''}:${part.value}`;
export const templateRef = refOf;

/** The templated parts of some expressions, by `datasetId:template`. */
export function templatesOf(
  expressions: ExpressionPart[][],
): Map<string, { datasetId: string; template: string }> {
  const out = new Map<string, { datasetId: string; template: string }>();
  for (const part of expressions.flat())
    if (isTemplate(part)) {
      const datasetId = (part.metadata as { datasetId?: unknown } | undefined)?.datasetId;
      if (typeof datasetId === 'string') out.set(refOf(part), { datasetId, template: part.value });
    }
  return out;
}

/** Every site of the organization with what placeholders read (one query). */
export async function siteAttributes(tx: Tx, organizationId: string): Promise<SiteAttributes[]> {
  const result = await sql<SiteAttributes>`
    select id, name, code, parent_id, metadata from sites where organization_id = ${organizationId}`.execute(
    tx,
  );
  return result.rows;
}

/** The coefficients of resolved keys, latest year not after `year`, by `datasetId:key`. */
export async function itemsOfKeys(
  tx: Tx,
  keys: { datasetId: string; key: string }[],
  year: number,
): Promise<Map<string, ReferencedItem>> {
  if (keys.length === 0) return new Map();
  const rows = await repo.items(tx, [], keys, year);
  return new Map(rows.map((r) => [`${r.dataset_id}:${r.key}`, r]));
}

/**
 * Groups the sites of each outer set (a requested site's tree, or the whole scope under null) by
 * the keys they resolve to. Sites that all find their coefficients share a group per distinct
 * set of keys; a site with a missing key or coefficient is a group of its own, so that the
 * answer can name it when it has data.
 */
export async function groupSites(
  tx: Tx,
  organizationId: string,
  templates: Map<string, { datasetId: string; template: string }>,
  outers: Map<string | null, string[] | null>,
  year: number,
): Promise<SiteGroups> {
  const all = await siteAttributes(tx, organizationId);
  const byId = new Map(all.map((s) => [s.id, s]));
  const resolved = new Map<string, Map<string, string | null>>();
  const wanted = new Map<string, { datasetId: string; key: string }>();
  for (const site of all) {
    const keys = new Map<string, string | null>();
    for (const [ref, { datasetId, template }] of templates) {
      const key = resolveKey(template, site, byId);
      keys.set(ref, key);
      if (key !== null) wanted.set(`${datasetId}:${key}`, { datasetId, key });
    }
    resolved.set(site.id, keys);
  }
  const items = await itemsOfKeys(tx, [...wanted.values()], year);
  const groups: SiteGroup[] = [];
  const groupIds: string[] = [];
  const siteIds: string[] = [];
  for (const [outer, ids] of outers) {
    const shared = new Map<string, SiteGroup>();
    for (const id of ids ?? all.map((s) => s.id)) {
      const site = byId.get(id);
      if (!site) continue;
      const keys = resolved.get(id)!;
      const complete = [...keys].every(
        ([ref, key]) => key !== null && items.has(`${templates.get(ref)!.datasetId}:${key}`),
      );
      const signature = complete ? [...keys.values()].join('\u0000') : null;
      let group = signature === null ? undefined : shared.get(signature);
      if (!group) {
        group = { id: randomUUID(), outer, sites: [], keys };
        groups.push(group);
        if (signature !== null) shared.set(signature, group);
      }
      group.sites.push({ id: site.id, name: site.name });
      groupIds.push(group.id);
      siteIds.push(site.id);
    }
  }
  return { groups, items, pairs: { groupIds, siteIds } };
}
