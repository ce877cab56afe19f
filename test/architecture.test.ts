import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

// Data flows one way between modules (e.g. submissions -> handler -> repositories; activities
// uses submissions' pipeline types and values repository, never the reverse): the import graph
// between the folders of src/modules, tests left out, has no cycle.
const MODULES = join(import.meta.dirname, '..', 'src', 'modules');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Imports and re-exports (`import … from`, `export … from`, `import('…')`) of a source file. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const pattern =
    /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of source.matchAll(pattern)) found.push((match[1] ?? match[2])!);
  return found;
}

const moduleOf = (path: string) => relative(MODULES, path).split('/')[0]!;

function moduleGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of files(MODULES)) {
    const from = moduleOf(file);
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(`${MODULES}/`)) continue;
      const to = moduleOf(target);
      if (to !== from && !edges.has(to)) edges.set(to, `${relative(MODULES, file)} -> ${spec}`);
    }
  }
  return graph;
}

/** Every cycle (as a list of modules and the import that makes each step), found by DFS. */
function cycles(graph: Map<string, Map<string, string>>): string[] {
  const found = new Set<string>();
  const visit = (start: string, node: string, path: string[], via: string[]) => {
    for (const [next, why] of graph.get(node) ?? []) {
      if (next === start) {
        const ring = [...path];
        const min = ring.indexOf([...ring].sort()[0]!);
        const key = [...ring.slice(min), ...ring.slice(0, min)].join(' -> ');
        if (!found.has(key)) found.add(`${key} (${[...via, why].join('; ')})`);
      } else if (!path.includes(next) && next > start) {
        visit(start, next, [...path, next], [...via, why]);
      }
    }
  };
  for (const start of graph.keys()) visit(start, start, [start], []);
  return [...found];
}

it('parses the imports of every module', () => {
  const graph = moduleGraph();
  expect(graph.get('activities')?.has('submissions')).toBe(true);
  expect(graph.size).toBeGreaterThan(10);
});

it('has no import cycle between modules', () => {
  expect(cycles(moduleGraph())).toEqual([]);
});

it('finds a cycle when there is one', () => {
  const graph = new Map([
    ['a', new Map([['b', 'a.ts -> ../b/b.ts']])],
    ['b', new Map([['a', 'b.ts -> ../a/a.ts']])],
  ]);
  expect(cycles(graph)).toHaveLength(1);
});
