import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/client.ts';
import { childrenOf, type Node, operandsOf } from '../../expressions/parse.ts';
import { type SiteTree, siteTree } from '../sites/index.ts';
import { parsedExpression } from './indicators.parsed.ts';
import type { IndicatorRow } from './indicators.repository.ts';
import { type ReferencedItem, indicatorsRepository as repo } from './indicators.repository.ts';
import type { ExpressionPart } from './indicators.schemas.ts';

/**
 * Site-dependent coefficients: a `datasetItem` part named by key whose key has placeholders
 * taken from each site (`grid_{site.metadata.country}`, `{site.code}`). Such an indicator is
 * evaluated per group of sites that resolve every such key alike, and the groups are added up.
 */

const PLACEHOLDER = /\{([^{}]*)\}/g;
const KNOWN = /^site\.(code|metadata\.[A-Za-z0-9_-]+)$/;

/**
 * A function of data (`max(0, electricity − certificates)`) applies per site: such an indicator
 * is evaluated per site, as if it had a key resolving to each site's own id (this marker).
 */
export const PER_SITE_REF = '*:{site.id}';

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

/** The key the site at `position` of the tree looks for (null when a placeholder has no value for it). */
function resolveKey(template: string, tree: SiteTree, position: number): string | null {
  if (template === PER_SITE_REF) return tree.sites[position]!.id;
  let missing = false;
  const key = template.replace(PLACEHOLDER, (_, inner: string) => {
    const value =
      inner === 'site.code'
        ? tree.sites[position]!.code
        : tree.resolvedField(inner.slice('site.metadata.'.length))[position]!;
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
  /** For the aggregate query: (group, site) pairs, and the groups' weighted totals covers. */
  pairs: { groupIds: string[]; siteIds: string[] };
  covers: { siteIds: string[]; weights: number[]; groupIds: string[] };
}

const refOf = (part: ExpressionPart) =>
  `${(part.metadata as { datasetId?: string } | undefined)?.datasetId ?? ''}:${part.value}`;
export const templateRef = refOf;

/** The templated parts of some expressions, by `datasetId:template`. */
export function templatesOf(
  expressions: ExpressionPart[][],
): Map<string, { datasetId: string; template: string }> {
  const out = new Map<string, { datasetId: string; template: string }>();
  if (expressions.some(hasDataFunction)) out.set(PER_SITE_REF, { datasetId: '*', template: PER_SITE_REF });
  for (const part of expressions.flat())
    if (isTemplate(part)) {
      const datasetId = (part.metadata as { datasetId?: unknown } | undefined)?.datasetId;
      if (typeof datasetId === 'string') out.set(refOf(part), { datasetId, template: part.value });
    }
  return out;
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

/** Sites of the tree that resolve every template alike: their keys and, once, their cover. */
interface KeyClass {
  /** A stable id: the group of the whole class when the organization's sites are grouped. */
  id: string;
  keys: Map<string, string | null>;
  positions: number[];
  /** Memoized with the class: its sites as a group lists them, and their totals cover. */
  sites?: { id: string; name: string }[];
  cover?: { siteIds: string[]; weights: number[] };
}

/**
 * Every site's keys for the templates, and the sites classed by them: computed once per version
 * of the tree and set of templates (kept on the tree snapshot), not once per request.
 */
function keyClasses(
  tree: SiteTree,
  templates: Map<string, { datasetId: string; template: string }>,
): { classOf: Int32Array; classes: KeyClass[] } {
  const refs = [...templates].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return tree.memoize(`keys:${JSON.stringify(refs)}`, () => {
    const classOf = new Int32Array(tree.size);
    const classes: KeyClass[] = [];
    const bySignature = new Map<string, number>();
    for (let at = 0; at < tree.size; at++) {
      const keys = refs.map(([, { template }]) => resolveKey(template, tree, at));
      const signature = JSON.stringify(keys);
      let index = bySignature.get(signature);
      if (index === undefined) {
        index = classes.length;
        bySignature.set(signature, index);
        classes.push({
          id: randomUUID(),
          keys: new Map(refs.map(([ref], i) => [ref, keys[i]!])),
          positions: [],
        });
      }
      classes[index]!.positions.push(at);
      classOf[at] = index;
    }
    return { classOf, classes };
  });
}

/**
 * Groups the sites of each outer set (a requested site's tree, or the whole scope under null) by
 * the keys they resolve to. Sites that all find their coefficients share a group per distinct
 * set of keys; a site with a missing key or coefficient is a group of its own, so that the
 * answer can name it when it has data. Each group comes with its cover of the totals. The keys
 * are resolved once per version of the tree: a request for the whole organization costs the
 * number of distinct keys, not of sites (one lookup of their coefficients).
 */
export async function groupSites(
  tx: Tx,
  organizationId: string,
  templates: Map<string, { datasetId: string; template: string }>,
  outers: Map<string | null, string[] | null>,
  year: number,
  years: { fromYear: number; toYear: number },
): Promise<SiteGroups> {
  const tree = await siteTree(tx, organizationId);
  const { classOf, classes } = keyClasses(tree, templates);
  const wanted = new Map<string, { datasetId: string; key: string }>();
  for (const { keys } of classes)
    for (const [ref, key] of keys)
      if (key !== null && ref !== PER_SITE_REF) {
        const { datasetId } = templates.get(ref)!;
        wanted.set(`${datasetId}:${key}`, { datasetId, key });
      }
  const items = await itemsOfKeys(tx, [...wanted.values()], year);
  const complete = classes.map(({ keys }) =>
    [...keys].every(
      ([ref, key]) =>
        ref === PER_SITE_REF || (key !== null && items.has(`${templates.get(ref)!.datasetId}:${key}`)),
    ),
  );
  const groups: SiteGroup[] = [];
  const pairs = { groupIds: [] as string[], siteIds: [] as string[] };
  const covers = { siteIds: [] as string[], weights: [] as number[], groupIds: [] as string[] };
  const add = (group: SiteGroup, siteIds: string[], cover: { siteIds: string[]; weights: number[] }) => {
    groups.push(group);
    for (const id of siteIds) {
      pairs.groupIds.push(group.id);
      pairs.siteIds.push(id);
    }
    covers.siteIds.push(...cover.siteIds);
    covers.weights.push(...cover.weights);
    for (const _ of cover.siteIds) covers.groupIds.push(group.id);
  };
  // A site with a missing key or coefficient: a group of its own (its cover: its own values).
  // Such a site with descendants (the root, a region without the metadata its plants have)
  // covers its own values as its subtree minus each child's, which reads as many sites' rows as
  // it has children; most such sites have no values of their own, so they are asked first (one
  // index probe each) and left out when they have none: a group without data adds nothing and
  // names no site.
  const parents = new Set<string>();
  for (const ids of outers.values())
    for (const at of ids === null ? tree.sites.keys() : ids.map((id) => tree.positionOf(id) ?? -1))
      if (at >= 0 && !complete[classOf[at]!]! && tree.spanned([tree.sites[at]!.id]) > 1)
        parents.add(tree.sites[at]!.id);
  const withValues =
    parents.size > 0
      ? await repo.sitesWithOwnValues(tx, organizationId, [...parents], years.fromYear, years.toYear)
      : new Set<string>();
  const alone = (outer: string | null, at: number) => {
    const site = tree.sites[at]!;
    if (parents.has(site.id) && !withValues.has(site.id)) return;
    const group = {
      id: randomUUID(),
      outer,
      sites: [{ id: site.id, name: site.name }],
      keys: classes[classOf[at]!]!.keys,
    };
    add(group, [site.id], tree.cover([site.id]));
  };
  for (const [outer, ids] of outers) {
    if (ids === null) {
      // Every site, in the tree's order: whole classes, with what was memoized for them.
      const added = new Set<number>();
      for (let at = 0; at < tree.size; at++) {
        const index = classOf[at]!;
        if (!complete[index]) alone(outer, at);
        else if (!added.has(index)) {
          added.add(index);
          const klass = classes[index]!;
          klass.sites ??= klass.positions.map((p) => ({ id: tree.sites[p]!.id, name: tree.sites[p]!.name }));
          klass.cover ??= tree.cover(klass.sites.map((s) => s.id));
          add(
            { id: klass.id, outer, sites: klass.sites, keys: klass.keys },
            klass.sites.map((s) => s.id),
            klass.cover,
          );
        }
      }
      continue;
    }
    // Some sites: their classes, as many as they span.
    const members = new Map<number, number[]>();
    for (const id of ids) {
      const at = tree.positionOf(id);
      if (at === undefined) continue;
      const index = classOf[at]!;
      if (!complete[index]) {
        alone(outer, at);
        continue;
      }
      if (!members.has(index)) members.set(index, []);
      members.get(index)!.push(at);
    }
    for (const [index, positions] of members) {
      const sites = positions.map((at) => ({ id: tree.sites[at]!.id, name: tree.sites[at]!.name }));
      const siteIds = sites.map((s) => s.id);
      add({ id: randomUUID(), outer, sites, keys: classes[index]!.keys }, siteIds, tree.cover(siteIds));
    }
  }
  return { groups, items, pairs, covers };
}

/**
 * Whether the expression applies a function (or compares) over data: an element, an activity or
 * an indicator among the arguments. Such a function is applied per site, then the sites are added.
 */
export function hasDataFunction(parts: ExpressionPart[]): boolean {
  if (!parts.some((p) => p.type === 'function')) return false;
  const tree = parsedExpression(parts);
  if (tree instanceof Error) return false;
  const visit = (node: Node): boolean =>
    (node.kind === 'call' && operandsOf(node).some((leaf) => leaf.type !== 'datasetItem')) ||
    childrenOf(node).some(visit);
  return visit(tree);
}

/** Whether the indicator itself is evaluated per site group: a site-dependent coefficient, or a function of data. */
export const isSiteDependent = (row: IndicatorRow) => {
  const parts = row.expression_parts as ExpressionPart[];
  return parts.some(isTemplate) || hasDataFunction(parts);
};
