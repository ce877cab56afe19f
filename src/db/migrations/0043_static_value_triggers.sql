-- The totals' and the completeness' value triggers without EXECUTE (issue 30; decision 146).
--
-- Both built their statement as text and ran it with EXECUTE, which PostgreSQL plans again on every
-- call: for a 50-value submission the totals' delta statement (five CTEs and an upsert) was planned
-- twice, once per trigger event of applyChanges' one statement, and the completeness' key query
-- ran (and was planned) even when the statement had changed no row. Now:
-- - the trigger reads its transition tables with static statements, whose plans PL/pgSQL keeps;
-- - the totals' contributions go, as arrays, to `sdcs_apply_value_deltas`, whose one statement keeps
--   a generic plan (every read in it a probe by key: decision 144) and reads the sites' ancestors
--   from a plain array, so `sdcs_site_ancestors` is inlined into that plan;
-- - a statement that changed no row returns at once.
-- `sdcs_value_delta_sql` stays for the form-sites' trigger (an activation is rare, and its source is
-- a join over the form-site's values).

-- Room on every page of the kept tables for a new version of each row: most writes of a submission
-- update rows these tables already have, and an update that fits on its page changes no index (a
-- heap-only tuple). With full pages, 60-80% of these updates also wrote an index entry.
ALTER TABLE value_totals SET (fillfactor = 70);
ALTER TABLE value_subtree_stats SET (fillfactor = 70);
ALTER TABLE value_site_stats SET (fillfactor = 70);
ALTER TABLE completeness_cells SET (fillfactor = 70);
ALTER TABLE completeness_subtree SET (fillfactor = 70);

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
