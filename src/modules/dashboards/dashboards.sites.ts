import type { Tx } from '../../db/client.ts';
import type { Viewer } from '../../domain/caller.ts';
import { groupBy } from '../../lib/group-by.ts';
import { siteScope } from '../access/index.ts';
import { siteTree } from '../sites/index.ts';

interface Site {
  id: string;
  name: string;
  parent_id: string | null;
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** The sites of the organization, and each site with its descendants. */
export class DashboardSiteTree {
  readonly byId: Map<string, Site>;
  private readonly children: Map<string, string[]>;

  constructor(sites: Site[]) {
    this.byId = new Map(sites.map((s) => [s.id, s]));
    this.children = groupBy(
      sites.filter((s) => s.parent_id),
      (s) => s.parent_id!,
      (s) => s.id,
    );
  }

  /** The sites with all their descendants. */
  expand(ids: readonly string[]): Set<string> {
    const out = new Set<string>();
    const stack = [...ids];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (out.has(id) || !this.byId.has(id)) continue;
      out.add(id);
      stack.push(...(this.children.get(id) ?? []));
    }
    return out;
  }

  private topLevel?: string[];

  /** The organization's top-level sites by name (as childrenOf sorts), computed once per tree. */
  roots(): string[] {
    this.topLevel ??= this.byName(this.tops(new Set(this.byId.keys())));
    return this.topLevel;
  }

  /** Sites by name (`Plant 2` before `Plant 10`), equal names in id order, whatever order they came in. */
  private byName(ids: Iterable<string>): string[] {
    return [...ids].sort(
      (a, b) =>
        collator.compare(this.byId.get(a)!.name, this.byId.get(b)!.name) || (a < b ? -1 : a > b ? 1 : 0),
    );
  }

  /** The sites of `set` whose parent is not in it: the tops of the set's trees. */
  tops(set: ReadonlySet<string>): string[] {
    return [...set].filter((id) => {
      const parent = this.byId.get(id)?.parent_id;
      return !parent || !set.has(parent);
    });
  }

  /**
   * CHILDREN breakdowns: the child sites of each given site (a site without children stands for
   * itself); null: the organization's top-level sites. Sorted by name (`Plant 2` before `Plant 10`).
   */
  childrenOf(ids: readonly string[] | null): string[] {
    const out = new Set<string>();
    if (ids === null) {
      for (const s of this.byId.values()) if (!s.parent_id) out.add(s.id);
    } else {
      for (const id of ids) {
        if (!this.byId.has(id)) continue;
        const children = this.children.get(id) ?? [];
        for (const child of children.length > 0 ? children : [id]) out.add(child);
      }
    }
    return this.byName(out);
  }

  /**
   * From the organization's site-tree snapshot (kept in process while the tree is unchanged), and
   * built once per snapshot: a dashboard read does not read every site again.
   */
  static async load(tx: Tx, organizationId: string): Promise<DashboardSiteTree> {
    const snapshot = await siteTree(tx, organizationId);
    return snapshot.memoize('dashboards:tree', () => new DashboardSiteTree(snapshot.sites));
  }
}

/**
 * The sites a computation names for a viewer: the given ones (each with its descendants); for a
 * member limited to some sites, a named site outside theirs stands for its descendants within.
 * undefined: every site the viewer sees.
 */
export async function sitesFor(
  tx: Tx,
  viewer: Viewer,
  tree: DashboardSiteTree,
  named: readonly string[] | undefined,
): Promise<string[] | undefined> {
  const scope = 'role' in viewer ? await siteScope(tx, viewer) : { all: true, siteIds: new Set<string>() };
  if (scope.all) return named ? [...new Set(named)] : undefined;
  const visible = scope.siteIds;
  const set = named ? tree.expand(named) : new Set(visible);
  return tree.tops(new Set([...set].filter((id) => visible.has(id))));
}
