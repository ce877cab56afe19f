import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Four rules about how src/ is put together, checked on the source text (tests left out):
// 1. Front doors: a module is used from outside only through its `index.ts`; no other file of
//    src/ imports another module's internal file (its repository, service, schemas, ...), and a
//    front door exports operations named for what they do, never a `*Repository` (decision 202).
// 2. SQL lives in repositories (`*.repository.ts`) and in src/db, nowhere else.
// 3. Data flows one way: the import graph between the modules of src/modules and the other
//    areas of src/ (http, db, domain, lib, sandbox, app.ts, ...) has no cycle, type-only
//    imports included (a type cycle through the composition root is still a cycle).
// 4. One name means one thing: no two files of one program export a declaration of the same name
//    (a TypeBox schema and its static type, in one file, are one name); re-exports
//    (`export { X } from`, `export * from`, `export { X }` of an imported X) and the modules'
//    `index.ts` front doors do not count. The browser's code (the `client/` folders, checked by
//    tsconfig.client.json) is a program of its own: it never imports the server's files, so a
//    `Form` there (the API's answer, from the generated types) and the server's `Form` schema
//    cannot be mistaken for each other; the rule applies to each program separately, and the
//    generated API types (src/api-types) belong to both.
//    Rules 1 to 3 see the browser's files too (they import no module but through relative paths
//    inside their own folder, and hold no SQL); the clock rule leaves /client/ out (a browser
//    has no server clock to inject).
const SRC = join(import.meta.dirname, '..', 'src');
const MODULES = join(SRC, 'modules');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * Imports and re-exports (`import … from`, `import type … from`, `export … from`, `import('…')`)
 * of a source file.
 */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const pattern =
    /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of source.matchAll(pattern)) found.push((match[1] ?? match[2])!);
  return found;
}

/** The node of the graph a file belongs to: `modules/<name>`, or the top area of src (`http`, `app.ts`, …). */
const areaOf = (path: string) => {
  const parts = relative(SRC, path).split('/');
  return parts[0] === 'modules' ? `modules/${parts[1]}` : parts[0]!;
};

interface Import {
  file: string;
  spec: string;
  target: string;
}

/** Every relative import between source files of src/, resolved to an absolute path. */
function imports(sources: Map<string, string>): Import[] {
  return [...sources].flatMap(([file, source]) =>
    specifiers(source)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => ({ file, spec, target: resolve(dirname(file), spec) }))
      .filter(({ target }) => target.startsWith(`${SRC}/`)),
  );
}

const read = () => new Map(files(SRC).map((file) => [file, readFileSync(file, 'utf8')]));

/** Imports of another module's file other than its `index.ts`. */
function backDoors(list: Import[]): string[] {
  return list
    .filter(({ file, target }) => {
      if (!target.startsWith(`${MODULES}/`) || areaOf(file) === areaOf(target)) return false;
      return relative(MODULES, target).split('/').slice(1).join('/') !== 'index.ts';
    })
    .map(({ file, spec }) => `${relative(SRC, file)} -> ${spec}`);
}

function graphOf(list: Import[]): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const { file, spec, target } of list) {
    const from = areaOf(file);
    const to = areaOf(target);
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    if (to !== from && !edges.has(to)) edges.set(to, `${relative(SRC, file)} -> ${spec}`);
  }
  return graph;
}

/** Every cycle (as a list of nodes and the import that makes each step), found by DFS. */
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

/**
 * What counts as SQL: a Kysely `sql` template (`sql\`…\``, `sql<T>\`…\``) or helper (`sql.ref(`,
 * `sql.raw(`, `sql.join(`, …), a query builder started on a transaction or database
 * (`.selectFrom(`, `.insertInto(`, `.updateTable(`, `.deleteFrom(`, `.replaceInto(`,
 * `.mergeInto(`, `.selectNoFrom(`), and `CompiledQuery` (raw statements). Comments are left
 * out first, so a doc comment may name them.
 */
const SQL = [
  /\bsql(?:<[^`;]*?>)?`/,
  /\bsql\.(?:ref|raw|lit|join|id|table|val)\(/,
  /\.(?:selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|selectNoFrom)\(/,
  /\bCompiledQuery\b/,
];
const withoutComments = (source: string) =>
  source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
const hasSql = (source: string) => SQL.some((pattern) => pattern.test(withoutComments(source)));
const mayHoldSql = (file: string) => file.endsWith('.repository.ts') || file.startsWith(`${SRC}/db/`);

/**
 * Files that still hold SQL outside a repository, each with why; the list only shrinks (a file
 * listed here that holds no SQL any more fails the test, so it is taken off).
 */
const SQL_PENDING: Record<string, string> = {};

const sources = read();
const list = imports(sources);

describe('front doors', () => {
  it('no file imports another module except through its index.ts', () => {
    expect(backDoors(list)).toEqual([]);
  });

  it('finds a back door when there is one', () => {
    const file = join(MODULES, 'a', 'a.service.ts');
    const planted = imports(new Map([[file, "import { bRepository } from '../b/b.repository.ts';"]]));
    expect(backDoors(planted)).toEqual(['modules/a/a.service.ts -> ../b/b.repository.ts']);
    const allowed = imports(
      new Map([[file, "import type { B } from '../b/index.ts';\nimport { a } from './a.ts';"]]),
    );
    expect(backDoors(allowed)).toEqual([]);
  });
});

/**
 * The names an `index.ts` front door exports: `export { a, b as c }` (with or without `from`)
 * and `export const|function|class|… name`.
 */
function exportedNames(source: string): string[] {
  const names: string[] = [];
  for (const match of withoutComments(source).matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}/g))
    for (const item of match[1]!.split(',')) {
      const name = item
        .replace(/^\s*type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      if (name) names.push(name);
    }
  const declaration =
    /\bexport\s+(?:declare\s+)?(?:async\s+)?(?:const|let|var|function\*?|class|type|interface|enum)\s+([A-Za-z_$][\w$]*)/g;
  for (const match of withoutComments(source).matchAll(declaration)) names.push(match[1]!);
  return names;
}

/** `module: name` for each repository a front door exports. */
function exportedRepositories(sources: Map<string, string>): string[] {
  return [...sources]
    .filter(([file]) => file.startsWith(`${MODULES}/`) && relative(MODULES, file).split('/').length === 2)
    .filter(([file]) => file.endsWith('/index.ts'))
    .flatMap(([file, source]) =>
      exportedNames(source)
        .filter((name) => name.endsWith('Repository'))
        .map((name) => `${relative(MODULES, dirname(file))}: ${name}`),
    );
}

/**
 * Front doors that may still export a repository, each with why; the list only shrinks (a
 * module listed here whose front door exports none fails the test, so it is taken off).
 */
const REPOSITORY_EXPORT_PENDING: Record<string, string> = {};

describe('front doors export operations, not repositories (decision 202)', () => {
  it('no index.ts exports a name ending in Repository', () => {
    const found = exportedRepositories(sources).filter(
      (entry) => !(entry.split(':')[0]! in REPOSITORY_EXPORT_PENDING),
    );
    expect(found).toEqual([]);
  });

  it('every module still allowed to export one does', () => {
    const stale = Object.keys(REPOSITORY_EXPORT_PENDING).filter((name) => {
      const source = sources.get(join(MODULES, name, 'index.ts'));
      return source !== undefined && !exportedNames(source).some((n) => n.endsWith('Repository'));
    });
    expect(stale).toEqual([]);
  });

  it('finds an exported repository, renamed or declared, and ignores operations', () => {
    const door = (text: string) => new Map([[join(MODULES, 'a', 'index.ts'), text]]);
    expect(exportedRepositories(door("export { aRepository } from './a.repository.ts';"))).toEqual([
      'a: aRepository',
    ]);
    expect(exportedRepositories(door("export { repo as aRepository } from './a.ts';"))).toEqual([
      'a: aRepository',
    ]);
    expect(exportedRepositories(door('export const bRepository = {};'))).toEqual(['a: bRepository']);
    expect(
      exportedRepositories(
        door(
          "import { aRepository } from './a.repository.ts';\n// aRepository stays inside\nexport const a = { find: aRepository.find };",
        ),
      ),
    ).toEqual([]);
    const inner = new Map([[join(MODULES, 'a', 'a.service.ts'), 'export const aRepository = {};']]);
    expect(exportedRepositories(inner)).toEqual([]);
  });
});

describe('SQL only in repositories and src/db', () => {
  it('no other source file holds SQL', () => {
    const outside = [...sources]
      .filter(([file, source]) => !mayHoldSql(file) && hasSql(source))
      .map(([file]) => relative(SRC, file))
      .filter((file) => !(file in SQL_PENDING));
    expect(outside).toEqual([]);
  });

  it('every file still listed as pending holds SQL', () => {
    const cleared = Object.keys(SQL_PENDING).filter((file) => !hasSql(sources.get(join(SRC, file)) ?? ''));
    expect(cleared).toEqual([]);
  });

  it('recognizes SQL and ignores it in comments', () => {
    expect(hasSql('const rows = await sql<{ id: string }>`select 1`.execute(tx);')).toBe(true);
    expect(hasSql('await sql`savepoint a`.execute(tx);')).toBe(true);
    expect(hasSql("return tx.selectFrom('sites').selectAll().execute();")).toBe(true);
    expect(hasSql("tx\n  .deleteFrom('media')")).toBe(true);
    expect(hasSql('database.begin(CompiledQuery.raw(text));')).toBe(true);
    expect(hasSql('const column = sql.ref(name);')).toBe(true);
    expect(
      hasSql('/** Reads `sql` templates and `.selectFrom(` calls. */\nconst a = 1; // .updateTable('),
    ).toBe(false);
    expect(hasSql("const label = 'sql';")).toBe(false);
  });
});

/**
 * Where the process's own clock may be read. Dates that reach data or answers come from the
 * injected `Clock` (tests move it) or from the database's `now()`; these files measure elapsed time,
 * share a timestamp between threads or name a file, and say so.
 */
const WALL_CLOCK: Record<string, string> = {
  'app.ts': 'the default Clock itself',
  'http/rate-limit.ts': 'rate windows: elapsed time',
  'http/overload.ts': 'the warm-up delay before load checks: elapsed time',
  'activities/activities.calculate.ts': 'the calculation budget: elapsed time',
  'sandbox/worker.ts': 'a CPU meter read by another thread (performance.now() origins differ per thread)',
  'sandbox/pool.ts': 'the same meter, read on the pool side',
  'lib/data-dir-lock.ts': 'a wait deadline: elapsed time',
  'mail/outbox.ts': "the outbox file's name",
  'db/backup.ts': "the kept directory's name",
};
const readsWallClock = (source: string) => /\bDate\.now\(\)|\bnew Date\(\s*\)/.test(withoutComments(source));

describe('time comes from the clock', () => {
  it('no other source file reads the process clock (Date.now(), new Date())', () => {
    const reading = [...sources]
      .filter(([file, source]) => !file.includes('/client/') && readsWallClock(source))
      .map(([file]) => relative(SRC, file).replace(/^modules\//, ''))
      .filter((file) => !(file in WALL_CLOCK));
    expect(reading).toEqual([]);
  });

  it('every file allowed to read it still does', () => {
    const cleared = Object.keys(WALL_CLOCK).filter((file) => {
      const source = sources.get(join(SRC, file)) ?? sources.get(join(MODULES, file)) ?? '';
      return !readsWallClock(source);
    });
    expect(cleared).toEqual([]);
  });

  it('recognizes a read of the clock, not a date made from a value', () => {
    expect(readsWallClock('const t = Date.now();')).toBe(true);
    expect(readsWallClock('return new Date();')).toBe(true);
    expect(readsWallClock('return new Date(row.at);')).toBe(false);
    expect(readsWallClock('// Date.now() is not used here')).toBe(false);
  });
});

describe('functions and triggers only in src/db/functions (decision 197)', () => {
  const MIGRATIONS = join(SRC, 'db', 'migrations');
  const definesLogic = (text: string) =>
    /^\s*(CREATE\s+(OR\s+REPLACE\s+)?(FUNCTION|TRIGGER|CONSTRAINT\s+TRIGGER|PROCEDURE)|DROP\s+(FUNCTION|TRIGGER|PROCEDURE)|ALTER\s+FUNCTION)\b/im.test(
      text.replace(/\$(\w*)\$[\s\S]*?\$\1\$/g, '').replace(/--[^\n]*/g, ''),
    );

  it('no migration creates, changes or drops a function or a trigger', () => {
    const offending = readdirSync(MIGRATIONS).filter((name) =>
      definesLogic(readFileSync(join(MIGRATIONS, name), 'utf8')),
    );
    expect(offending).toEqual([]);
  });

  it('recognizes a definition and ignores one in a comment or a string', () => {
    expect(
      definesLogic('ALTER TABLE a ADD b int;\ncreate or replace function f() returns int as $$ select 1 $$;'),
    ).toBe(true);
    expect(definesLogic('CREATE TRIGGER t AFTER INSERT ON a EXECUTE FUNCTION f();')).toBe(true);
    expect(definesLogic('DROP FUNCTION f();')).toBe(true);
    expect(definesLogic("-- CREATE FUNCTION f()\nDO $$ BEGIN EXECUTE 'x'; END $$;")).toBe(false);
  });
});

describe('no cycle', () => {
  it('parses the imports of every module and area', () => {
    const graph = graphOf(list);
    expect(graph.get('modules/activities')?.has('modules/submissions')).toBe(true);
    expect(graph.get('app.ts')?.has('modules/sites')).toBe(true);
    expect(graph.size).toBeGreaterThan(30);
  });

  it('has no import cycle between modules and areas, type-only imports included', () => {
    expect(cycles(graphOf(list))).toEqual([]);
  });

  it('finds a cycle when there is one, through a type-only import too', () => {
    const planted = new Map([
      [join(MODULES, 'a', 'a.ts'), "import { b } from '../b/index.ts';"],
      [join(MODULES, 'b', 'b.ts'), "import type { A } from '../a/index.ts';"],
    ]);
    expect(cycles(graphOf(imports(planted)))).toHaveLength(1);
    const throughRoot = new Map([
      [join(SRC, 'app.ts'), "import { mediaRoutes } from './modules/media/index.ts';"],
      [join(MODULES, 'media', 'media.service.ts'), "import type { Clock } from '../../app.ts';"],
    ]);
    expect(cycles(graphOf(imports(throughRoot)))).toHaveLength(1);
  });
});

/**
 * The names a source file defines and exports: `export const|function|class|type|interface|enum …`
 * at the start of a line, and `export { a, b as c }` (no `from`) of names not imported.
 */
function definedExports(source: string): Set<string> {
  const names = new Set<string>();
  const declaration =
    /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:const|let|var|function\*?|class|type|interface|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm;
  for (const match of source.matchAll(declaration)) names.add(match[1]!);
  const imported = new Set<string>();
  for (const match of source.matchAll(/^import\s+(?:type\s+)?([^'";]*?)\s+from\s/gm))
    for (const name of match[1]!.matchAll(/([A-Za-z_$][\w$]*)\s*(?:[,}]|$)/g)) imported.add(name[1]!);
  for (const match of source.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s*(?!\s*from)(?:;|$)/gm))
    for (const item of match[1]!.split(',')) {
      const [local, exported] = item
        .replace(/^\s*type\s+/, '')
        .split(/\s+as\s+/)
        .map((n) => n.trim());
      if (local && !imported.has(local)) names.add(exported ?? local);
    }
  return names;
}

/** The program a file is type-checked in: the browser's (a `client/` folder) or the server's. */
const programOf = (file: string) => (file.includes('/client/') ? 'browser' : 'server');
const bothPrograms = (file: string) => file.startsWith(join(SRC, 'api-types'));

/** Names exported by more than one file of one program (index.ts front doors left out), with their files. */
function sameNames(sources: Map<string, string>): string[] {
  const found: string[] = [];
  for (const program of ['server', 'browser']) {
    const mine = [...sources].filter(([file]) => programOf(file) === program || bothPrograms(file));
    found.push(...sameNamesIn(new Map(mine)));
  }
  return found;
}

function sameNamesIn(sources: Map<string, string>): string[] {
  const byName = new Map<string, string[]>();
  for (const [file, source] of sources) {
    if (file.endsWith('/index.ts')) continue;
    for (const name of definedExports(source))
      byName.set(name, [...(byName.get(name) ?? []), relative(SRC, file)]);
  }
  return [...byName]
    .filter(([name, where]) => where.length > 1 && !SAME_NAME_ALLOWED.has(name))
    .map(([name, where]) => `${name}: ${where.join(', ')}`);
}

/** Names two files may both export, each with its reason (none: rename instead). */
const SAME_NAME_ALLOWED = new Map<string, string>([]);

describe('one name, one thing', () => {
  it('no two files of src/ export a declaration of the same name', () => {
    expect(sameNames(read())).toEqual([]);
  });

  it('finds two definitions of a name, not a re-export or a schema with its type', () => {
    const planted = new Map([
      [
        join(MODULES, 'a', 'a.ts'),
        'export const Row = Type.Object({});\nexport type Row = Static<typeof Row>;',
      ],
      [join(MODULES, 'b', 'b.ts'), 'export interface Row {\n  id: string;\n}'],
      [join(MODULES, 'b', 'c.ts'), "export { Row } from '../a/a.ts';\nexport * from './b.ts';"],
      [join(MODULES, 'b', 'd.ts'), "import type { Row } from '../a/a.ts';\nexport type { Row };"],
      [join(MODULES, 'b', 'index.ts'), 'export interface Row {}'],
      [join(MODULES, 'c', 'e.ts'), 'const local = 1;\nexport { local as Row };'],
    ]);
    expect(sameNames(planted)).toEqual(['Row: modules/a/a.ts, modules/b/b.ts, modules/c/e.ts']);
  });

  it('checks the browser’s program apart from the server’s', () => {
    const planted = new Map([
      [join(MODULES, 'forms', 'forms.schemas.ts'), 'export const Form = Type.Object({});'],
      [join(MODULES, 'web-app', 'client', 'api-shapes.ts'), 'export type Form = { id: string };'],
      [join(MODULES, 'web-app', 'client', 'other.ts'), 'export function Form() {}'],
    ]);
    expect(sameNames(planted)).toEqual([
      'Form: modules/web-app/client/api-shapes.ts, modules/web-app/client/other.ts',
    ]);
  });
});

// 5. One writer of values (decision 199): outside src/db, only the values module writes stored
//    values (`form_element_submissions`) and their history (`form_value_history`); in it one
//    repository holds those statements and only `values.write.ts` (the guards, then the write)
//    calls it; the module's front door exports operations, never a `*Repository`.
const VALUE_TABLES = ['form_element_submissions', 'form_value_history'];
const writesValues = (source: string) => {
  const text = withoutComments(source);
  return VALUE_TABLES.some((table) =>
    new RegExp(
      String.raw`\b(?:insert\s+into|update|delete\s+from|merge\s+into)\s+${table}\b|\.(?:insertInto|updateTable|deleteFrom|mergeInto|replaceInto)\(\s*['"]${table}\b|appendHistory\([^)]*['"]${table}['"]`,
      'i',
    ).test(text),
  );
};
describe('one writer of values (decision 199)', () => {
  it('outside src/db, only the values module’s changes repository writes values and their history', () => {
    const writers = [...sources]
      .filter(([file, source]) => !file.startsWith(`${SRC}/db/`) && writesValues(source))
      .map(([file]) => relative(SRC, file));
    expect(writers).toEqual(['modules/values/changes.repository.ts']);
  });

  it('only values.write.ts calls that repository', () => {
    const callers = [...sources]
      .filter(([, source]) => /\bvalueChangesRepository\b/.test(withoutComments(source)))
      .map(([file]) => relative(SRC, file))
      .sort();
    expect(callers).toEqual(['modules/values/changes.repository.ts', 'modules/values/values.write.ts']);
  });

  it('the values front door exports operations, not repositories', () => {
    const names = exportedNames(sources.get(join(MODULES, 'values', 'index.ts')) ?? '');
    expect(names).toContain('writeValues');
    expect(names.filter((name) => /Repository$/.test(name))).toEqual([]);
  });

  it('recognizes a write of a value or of its history, not a read', () => {
    expect(
      writesValues("await sql`update form_element_submissions set status = 'APPROVED'`.execute(tx);"),
    ).toBe(true);
    expect(writesValues("tx.insertInto('form_value_history').values(rows)")).toBe(true);
    expect(writesValues("await appendHistory(\n  tx,\n  'form_value_history',\n  rows,\n);")).toBe(true);
    expect(writesValues("tx.deleteFrom('form_element_submissions').where('id', '=', id)")).toBe(true);
    expect(writesValues("tx.selectFrom('form_element_submissions as v').forUpdate()")).toBe(false);
    expect(writesValues('sql`select id from form_element_submissions for update of v`')).toBe(false);
    expect(writesValues('// update form_element_submissions here is a comment')).toBe(false);
    expect(
      exportedNames("export { a, type B as C } from './x.ts';\nexport type { dRepository } from './y.ts';"),
    ).toEqual(['a', 'C', 'dRepository']);
  });
});
