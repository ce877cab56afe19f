-- One organization's writers side by side (issue 30; decision 146).
--
-- Until now every aggregate trigger took one advisory lock per organization, held to the commit,
-- and every submission upserted the same ancestors' rows (the organization's row of an element and
-- year is in every submission of that year): ten writers of one organization ran one at a time.
--
-- Stripes. Every (site, year) belongs to one of 16 stripes, `sdcs_aggregate_stripe(site, year)`, and
-- each organization has one advisory lock per stripe. The subtree tables (value_totals,
-- value_subtree_stats, completeness_subtree) gain a `stripe` column in their key: a site's figure is
-- the sum of its rows over the stripes (up to 16 per key; the readers already summed the rows they
-- read, and the checks add the stripes up). The per-site rows (value_site_stats, completeness_cells)
-- need no column.
--
-- The rule: a row of stripe k is written only by a holder of stripe k's lock, held to the commit.
-- - A statement whose (site, year) pairs of an organization are all in one stripe takes that lock and
--   writes that stripe's rows. Writers of the same (site, year) share the lock, as they shared the
--   organization's, so a recomputation of a site's statistics or cells sees every committed write of
--   its keys; writers in other stripes go on beside it.
-- - A statement over several stripes (a source import, a bulk review), a tree move and a rebuild
--   take all 16 locks in order, and write stripe 0 (moves: each row's own stripe). Two imports then
--   queue on stripe 0 instead of taking each other's stripes crosswise over several statements.
-- - No writer waits for a row lock of these tables, so no two deadlock on their rows. One order can
--   still deadlock on the locks (a transaction writing one stripe, then several in a later statement,
--   against another doing the same crosswise): PostgreSQL detects it and the service answers 409.
-- Existing rows stay in stripe 0, which is a valid state.

-- The tables. Existing rows are stripe 0's.
ALTER TABLE value_totals ADD COLUMN stripe smallint NOT NULL DEFAULT 0;
ALTER TABLE value_totals DROP CONSTRAINT value_totals_pkey,
  ADD PRIMARY KEY (organization_id, site_id, element_id, year, status, period_unit, stripe);
ALTER TABLE value_subtree_stats ADD COLUMN stripe smallint NOT NULL DEFAULT 0;
ALTER TABLE value_subtree_stats DROP CONSTRAINT value_subtree_stats_pkey,
  ADD PRIMARY KEY (organization_id, site_id, element_id, year, period_unit, stripe);
ALTER TABLE completeness_subtree ADD COLUMN stripe smallint NOT NULL DEFAULT 0;
ALTER TABLE completeness_subtree DROP CONSTRAINT completeness_subtree_pkey,
  ADD PRIMARY KEY (organization_id, form_id, year, site_id, period_unit, stripe);

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
