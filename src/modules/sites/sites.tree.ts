import type { Tx } from '../../db/client.ts';
import { groupBy } from '../../lib/group-by.ts';
import { sitesRepository, type TreeSite } from './sites.repository.ts';

/** How many derived things (resolved fields, key classes) a snapshot keeps. */
const MEMO_LIMIT = 32;

/**
 * One organization's site tree at one version, in pre-order: a site's subtree is the interval
 * [index, end) of the order, so its descendants, whether a set holds all of them, and the cover
 * of a set are computed without walking the tree again. Immutable once built; what is derived
 * from it (resolved metadata, grouped keys) is memoized on it and thrown away with it.
 */
export class SiteTree {
  /** The sites in pre-order (a parent before its children). */
  readonly sites: TreeSite[];
  private readonly index = new Map<string, number>();
  /** The end (exclusive) of each site's subtree interval in `sites`. */
  private readonly end: Int32Array;
  /** Each site's parent's position, −1 for a root. */
  private readonly parent: Int32Array;
  private readonly children: number[][];
  private readonly memo = new Map<string, unknown>();

  constructor(
    /** The version it was built at (site_tree_versions); null: not to be cached. */
    readonly version: string | null,
    rows: TreeSite[],
  ) {
    const ids = new Set(rows.map((r) => r.id));
    const kids = groupBy(rows, (row): string | null =>
      row.parent_id !== null && ids.has(row.parent_id) ? row.parent_id : null,
    );
    this.sites = [];
    this.end = new Int32Array(rows.length);
    this.parent = new Int32Array(rows.length).fill(-1);
    this.children = [];
    // Iterative pre-order from the roots; a site on a cycle (which the service never stores) is
    // never reached and is added afterwards as a root without descendants.
    const visit = (root: TreeSite) => {
      const stack: [TreeSite, number, boolean][] = [[root, -1, false]];
      while (stack.length > 0) {
        const [site, parent, closing] = stack.pop()!;
        if (closing) {
          this.end[this.index.get(site.id)!] = this.sites.length;
          continue;
        }
        if (this.index.has(site.id)) continue;
        const at = this.sites.length;
        this.index.set(site.id, at);
        this.sites.push(site);
        this.children.push([]);
        this.parent[at] = parent;
        if (parent >= 0) this.children[parent]!.push(at);
        stack.push([site, parent, true]);
        const below = kids.get(site.id) ?? [];
        for (let i = below.length - 1; i >= 0; i--) stack.push([below[i]!, at, false]);
      }
    };
    for (const root of kids.get(null) ?? []) visit(root);
    for (const row of rows)
      if (!this.index.has(row.id)) {
        this.index.set(row.id, this.sites.length);
        this.end[this.sites.length] = this.sites.length + 1;
        this.sites.push(row);
        this.children.push([]);
      }
  }

  get size(): number {
    return this.sites.length;
  }

  has(id: string): boolean {
    return this.index.has(id);
  }

  positionOf(id: string): number | undefined {
    return this.index.get(id);
  }

  /** The top-level sites. */
  roots(): string[] {
    return this.sites.filter((_, i) => this.parent[i] === -1).map((s) => s.id);
  }

  /** The site and all its descendants (empty for an unknown id). */
  subtree(id: string): string[] {
    const at = this.index.get(id);
    if (at === undefined) return [];
    return this.sites.slice(at, this.end[at]).map((s) => s.id);
  }

  /** How many distinct sites the subtrees of `ids` hold together (unknown ids hold none). */
  spanned(ids: string[]): number {
    const intervals = ids
      .map((id) => this.index.get(id))
      .filter((at): at is number => at !== undefined)
      .map((at) => [at, this.end[at]!] as const)
      .sort((a, b) => a[0] - b[0]);
    let count = 0;
    let reached = 0;
    for (const [from, to] of intervals) {
      if (to <= reached) continue; // inside a subtree already counted
      count += to - Math.max(from, reached);
      reached = to;
    }
    return count;
  }

  /**
   * The sites whose subtree rows of `value_totals`, weighted, add up to exactly the values of
   * the sites of `siteIds`: a site of the set whose whole subtree is in the set counts once at
   * the top of such a subtree (+1); a site of the set with a descendant outside it counts its own
   * values alone: its subtree row (+1) minus each child's subtree row (−1). Ids that are not
   * sites of the tree are left out (they have no values). Costs the set's size, not the tree's.
   */
  cover(siteIds: Iterable<string>): { siteIds: string[]; weights: number[] } {
    const wanted: number[] = [];
    const seen = new Set<number>();
    for (const id of siteIds) {
      const at = this.index.get(id);
      if (at !== undefined && !seen.has(at)) {
        seen.add(at);
        wanted.push(at);
      }
    }
    const sorted = Int32Array.from(wanted).sort();
    // How many positions of the set lie in [from, to).
    const lowerBound = (x: number) => {
      let lo = 0;
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (sorted[mid]! < x) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const complete = (at: number) =>
      seen.has(at) && lowerBound(this.end[at]!) - lowerBound(at) === this.end[at]! - at;
    const weights = new Map<number, number>();
    const add = (at: number, w: number) => weights.set(at, (weights.get(at) ?? 0) + w);
    for (const at of wanted) {
      if (complete(at)) {
        const parent = this.parent[at]!;
        if (parent < 0 || !complete(parent)) add(at, 1);
      } else {
        add(at, 1);
        for (const child of this.children[at]!) add(child, -1);
      }
    }
    const out = { siteIds: [] as string[], weights: [] as number[] };
    for (const [at, w] of weights)
      if (w !== 0) {
        out.siteIds.push(this.sites[at]!.id);
        out.weights.push(w);
      }
    return out;
  }

  /**
   * A metadata field of every site (by position), else of its nearest ancestor that has it: a
   * non-empty string, or a finite number as text; null when no site up the tree has one.
   */
  resolvedField(field: string): (string | null)[] {
    return this.memoize(`field:${field}`, () => {
      const out: (string | null)[] = new Array(this.sites.length).fill(null);
      // Pre-order: a parent is resolved before its children.
      this.sites.forEach((site, i) => {
        const value = site.metadata?.[field];
        if (typeof value === 'string' && value !== '') out[i] = value;
        else if (typeof value === 'number' && Number.isFinite(value)) out[i] = String(value);
        else out[i] = this.parent[i]! >= 0 ? out[this.parent[i]!]! : null;
      });
      return out;
    });
  }

  /**
   * Something derived from this version of the tree, computed once and kept with it (the last
   * MEMO_LIMIT keys: each may be as large as the tree).
   */
  memoize<T>(key: string, build: () => T): T {
    if (!this.memo.has(key)) {
      this.memo.set(key, build());
      for (const oldest of this.memo.keys()) {
        if (this.memo.size <= MEMO_LIMIT) break;
        this.memo.delete(oldest);
      }
    }
    return this.memo.get(key) as T;
  }
}

/** At most this many organizations' trees, and at most this many sites in all, are kept. */
export const TREE_CACHE_LIMITS = { trees: 64, sites: 500_000 };

/** The snapshots by organization, least recently used first (a Map keeps insertion order). */
const cache = new Map<string, SiteTree>();
let cachedSites = 0;

function remember(organizationId: string, tree: SiteTree): void {
  const old = cache.get(organizationId);
  if (old) {
    cache.delete(organizationId);
    cachedSites -= old.size;
  }
  if (tree.version === null || tree.size > TREE_CACHE_LIMITS.sites) return;
  cache.set(organizationId, tree);
  cachedSites += tree.size;
  for (const [org, oldest] of cache) {
    if (cache.size <= TREE_CACHE_LIMITS.trees && cachedSites <= TREE_CACHE_LIMITS.sites) break;
    cache.delete(org);
    cachedSites -= oldest.size;
  }
}

/** For tests and benchmarks: forget every snapshot, and how many are kept. */
export const siteTreeCache = {
  clear(): void {
    cache.clear();
    cachedSites = 0;
  },
  get size(): number {
    return cache.size;
  },
  get sites(): number {
    return cachedSites;
  },
  /** The version of the organization's snapshot held, if any. */
  versionOf(organizationId: string): string | null {
    return cache.get(organizationId)?.version ?? null;
  },
};

/**
 * The organization's site tree as this transaction sees it. One indexed read of the tree's
 * version per call; the sites themselves are read (in one statement, with the version they are
 * at) only when this process holds no snapshot of that version. Every write to sites gives a
 * new version in its own transaction (migration 0030), so another instance's write is seen by
 * the next read here, and a transaction that wrote sites itself reads its own new version.
 */
export async function siteTree(tx: Tx, organizationId: string): Promise<SiteTree> {
  const version = await sitesRepository.treeVersion(tx, organizationId);
  const cached = cache.get(organizationId);
  if (cached && version !== null && cached.version === version) {
    cache.delete(organizationId); // most recently used: to the end
    cache.set(organizationId, cached);
    return cached;
  }
  const rows = await sitesRepository.treeSites(tx, organizationId);
  const tree = new SiteTree(rows[0]?.version ?? null, rows);
  remember(organizationId, tree);
  return tree;
}
