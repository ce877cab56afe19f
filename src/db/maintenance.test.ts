import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers/app.ts';
import { maintainEmbedded } from './maintenance.ts';

const t = useTestApp();

const stats = (table: string) =>
  t.database
    .system(async (tx) => {
      await sql`select pg_stat_force_next_flush()`.execute(tx);
      return tx;
    })
    .then(() =>
      t.database.system(
        async (tx) =>
          (
            await sql<{ analyzed: boolean; vacuumed: boolean; pending: number }>`
            select last_analyze is not null as analyzed, last_vacuum is not null as vacuumed,
                   n_mod_since_analyze::int as pending
              from pg_stat_user_tables where relname = ${table}`.execute(tx)
          ).rows[0]!,
      ),
    );

describe.skipIf(Boolean(process.env['DATABASE_URL']))(
  'embedded database upkeep (PGlite has no autovacuum)',
  () => {
    it('vacuums and analyzes a table after many inserts, then leaves it alone until it changes again', async () => {
      await t.database.execScript(
        'create table upkeep_probe (id int primary key, v int); insert into upkeep_probe select g, g from generate_series(1, 5000) g;',
      );
      const before = await stats('upkeep_probe');
      expect(before).toMatchObject({ analyzed: false, vacuumed: false });
      expect(before.pending).toBe(5000);

      const done = await maintainEmbedded(t.database);
      expect(done).toContainEqual({ table: 'public.upkeep_probe', action: 'VACUUM (ANALYZE)' });
      const after = await stats('upkeep_probe');
      expect(after).toEqual({ analyzed: true, vacuumed: true, pending: 0 });

      // Nothing changed since: the table is not touched again.
      expect((await maintainEmbedded(t.database)).map((d) => d.table)).not.toContain('public.upkeep_probe');

      // A few changes stay under the threshold; many updates are analyzed again.
      await t.database.execScript('update upkeep_probe set v = v + 1 where id <= 10');
      expect((await maintainEmbedded(t.database)).map((d) => d.table)).not.toContain('public.upkeep_probe');
      // 710 changed rows (> 50 + 10% of 5,000): analyzed; 710 dead rows (< 50 + 20%): not vacuumed.
      await t.database.execScript('update upkeep_probe set v = v + 1 where id <= 700');
      expect(await maintainEmbedded(t.database)).toContainEqual({
        table: 'public.upkeep_probe',
        action: 'ANALYZE',
      });
      // 2,710 dead rows: vacuumed.
      await t.database.execScript('update upkeep_probe set v = v + 1 where id <= 2000');
      expect(await maintainEmbedded(t.database)).toContainEqual({
        table: 'public.upkeep_probe',
        action: 'VACUUM (ANALYZE)',
      });
      expect((await stats('upkeep_probe')).pending).toBe(0);
    });
  },
);

describe.skipIf(!process.env['DATABASE_URL'])('on a PostgreSQL server', () => {
  it('does nothing: the server’s autovacuum does the work', async () => {
    expect(await maintainEmbedded(t.database)).toEqual([]);
  });
});
