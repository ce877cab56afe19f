import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers/app.ts';
import { functionFiles, migrate } from './migrate.ts';

const t = useTestApp();

const normalise = (text: string) =>
  text
    .replace(/^--[^\n]*$/gm, '')
    .replace(/\s+/g, ' ')
    .replace(/;\s*$/, '')
    .trim();

const databaseFunctions = () =>
  t.database.system(
    async (tx) =>
      (
        await sql<{ name: string; definition: string }>`
          select p.proname as name, pg_get_functiondef(p.oid) as definition
            from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname = 'public'
             and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
           order by 1`.execute(tx)
      ).rows,
  );

const databaseTriggers = () =>
  t.database.system(
    async (tx) =>
      (
        await sql<{ name: string; definition: string }>`
          select t.tgname as name, pg_get_triggerdef(t.oid) as definition
            from pg_trigger t join pg_class c on c.oid = t.tgrelid
            join pg_namespace n on n.oid = c.relnamespace
           where not t.tgisinternal and n.nspname = 'public'
           order by 1`.execute(tx)
      ).rows,
  );

describe('functions and triggers live in src/db/functions, one file each (decision 197)', () => {
  it('every function of the database is the one its file defines, and every file is applied', async () => {
    const files = await functionFiles();
    const inDatabase = await databaseFunctions();
    expect(inDatabase.map((f) => f.name)).toEqual(files.map((f) => f.name));
    for (const fn of inDatabase) {
      const file = files.find((f) => f.name === fn.name)!;
      expect(normalise(file.definition), `${fn.name}.sql`).toBe(normalise(fn.definition));
    }
  });

  it('every trigger of the database is written in the file of the function it runs', async () => {
    const files = await functionFiles();
    const written = files.flatMap((f) =>
      f.triggers.map((tr) => normalise(tr).replace('CREATE OR REPLACE TRIGGER', 'CREATE TRIGGER')),
    );
    const inDatabase = await databaseTriggers();
    expect(inDatabase.length).toBe(written.length);
    for (const trigger of inDatabase) expect(written, trigger.name).toContain(normalise(trigger.definition));
  });

  it('a function changed behind the files’ back is put back, and a stray one dropped, when the files change', async () => {
    await t.database.execScript(`
      CREATE OR REPLACE FUNCTION sdcs_current_org() RETURNS uuid LANGUAGE sql STABLE AS $$ SELECT NULL::uuid $$;
      CREATE FUNCTION sdcs_stray() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
      UPDATE schema_functions SET sha256 = 'changed';`);
    await migrate(t.database);
    const names = (await databaseFunctions()).map((f) => f.name);
    expect(names).not.toContain('sdcs_stray');
    const files = await functionFiles();
    const current = (await databaseFunctions()).find((f) => f.name === 'sdcs_current_org')!;
    expect(normalise(current.definition)).toBe(
      normalise(files.find((f) => f.name === 'sdcs_current_org')!.definition),
    );
  });

  it('a database from before the move that missed some of the early migrations is refused in words', async () => {
    await t.database.execScript(
      "DELETE FROM schema_migrations WHERE name = '0051_review_queue.sql'; UPDATE schema_functions SET sha256 = 'x';",
    );
    try {
      await expect(migrate(t.database)).rejects.toThrow(/early version of SDCS.*Upgrade it first/);
    } finally {
      await t.database.execScript("INSERT INTO schema_migrations (name) VALUES ('0051_review_queue.sql')");
      await migrate(t.database);
    }
  });
});
