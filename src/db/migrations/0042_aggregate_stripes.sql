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

CREATE FUNCTION sdcs_aggregate_stripe(site uuid, year integer) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (hashtextextended(site::text, year) & 15)::smallint
$$;

-- Locks the stripes of one organization that a statement writes, and answers the stripe its rows go
-- to: the one stripe of its (site, year) pairs, or, when they fall in several, all 16 in order and
-- stripe 0 (a holder of every lock may write any stripe; one stripe keeps a bulk write's rows as few
-- as before stripes). A null stripe (a form-site no longer there) counts as several.
CREATE FUNCTION sdcs_lock_stripes(org uuid, stripes smallint[]) RETURNS smallint LANGUAGE plpgsql AS $$
DECLARE
  wanted constant smallint[] := ARRAY(SELECT DISTINCT s FROM unnest(stripes) s);
  s integer;
BEGIN
  IF cardinality(wanted) = 0 THEN RETURN 0; END IF;
  IF cardinality(wanted) = 1 AND wanted[1] IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(hashtextextended('sdcs.aggregates:' || org::text, wanted[1]));
    RETURN wanted[1];
  END IF;
  FOR s IN 0..15 LOOP
    PERFORM pg_advisory_xact_lock(hashtextextended('sdcs.aggregates:' || org::text, s));
  END LOOP;
  RETURN 0;
END $$;

-- Every stripe of one organization: what tree moves and rebuilds hold.
CREATE OR REPLACE FUNCTION sdcs_lock_value_totals(org uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sdcs_lock_stripes(org, ARRAY[NULL]::smallint[]);
END $$;

-- The stripes of (organization, site, year) rows, organization by organization in id order.
CREATE FUNCTION sdcs_lock_stripes_of(orgs uuid[], sites uuid[], years integer[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE o record;
BEGIN
  FOR o IN SELECT k.org, array_agg(DISTINCT sdcs_aggregate_stripe(k.site, k.year)) AS stripes
             FROM unnest(orgs, sites, years) k(org, site, year) GROUP BY 1 ORDER BY 1 LOOP
    PERFORM sdcs_lock_stripes(o.org, o.stripes);
  END LOOP;
END $$;

-- The stripes of some form-sites of one organization (each is one site and year); answers the stripe
-- to write, as sdcs_lock_stripes.
CREATE FUNCTION sdcs_lock_form_site_stripes(org uuid, ids uuid[]) RETURNS smallint LANGUAGE sql AS $$
  SELECT sdcs_lock_stripes(org, ARRAY(
    SELECT sdcs_aggregate_stripe(fs.site_id, fs.year)
      FROM (SELECT DISTINCT unnest(ids)) k(id)
      LEFT JOIN LATERAL (
        SELECT fs.site_id, fs.year FROM form_sites fs WHERE fs.organization_id = org AND fs.id = k.id OFFSET 0) fs
        ON true))
$$;

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

-- ---------------------------------------------------------------------------------------------
-- value_totals

CREATE OR REPLACE FUNCTION sdcs_value_delta_sql(source text) RETURNS text LANGUAGE sql IMMUTABLE AS $f$
  SELECT format($q$
    WITH changed AS (%s),
    inactive AS (
      SELECT sub.id FROM form_submissions sub
        JOIN form_sites fs ON fs.organization_id = sub.organization_id AND fs.id = sub.form_site_id
       WHERE sub.id = ANY (ARRAY(SELECT DISTINCT form_submission_id FROM changed)) AND NOT fs.active
    ),
    d AS (
      SELECT organization_id, site_id, element_id, year, status, period_unit, sum(v) AS total, sum(c) AS value_count
        FROM changed
       WHERE form_submission_id IS NULL OR form_submission_id <> ALL (ARRAY(SELECT id FROM inactive))
       GROUP BY 1, 2, 3, 4, 5, 6
      HAVING sum(v) <> 0 OR sum(c) <> 0
    ),
    up AS (
      SELECT DISTINCT d.organization_id, a.site_id, a.ancestor_id
        FROM (SELECT DISTINCT organization_id FROM d) d
        CROSS JOIN LATERAL sdcs_site_ancestors(d.organization_id,
          ARRAY(SELECT DISTINCT x.site_id FROM d x WHERE x.organization_id = d.organization_id)) a
    )
    INSERT INTO value_totals AS t (organization_id, site_id, element_id, year, status, period_unit, stripe, total, value_count)
    SELECT d.organization_id, up.ancestor_id, d.element_id, d.year, d.status, d.period_unit,
           sdcs_aggregate_stripe(d.site_id, d.year), sum(d.total), sum(d.value_count)
      FROM d JOIN up ON up.organization_id = d.organization_id AND up.site_id = d.site_id
     GROUP BY 1, 2, 3, 4, 5, 6, 7
     ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (organization_id, site_id, element_id, year, status, period_unit, stripe) DO UPDATE
      SET total = t.total + excluded.total, value_count = t.value_count + excluded.value_count
  $q$, source)
$f$;

CREATE OR REPLACE FUNCTION sdcs_value_totals_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  cols constant text := 'organization_id, site_id, element_id, year, status, period_unit, form_submission_id';
  live constant text := 'deleted_at IS NULL AND numeric_value IS NOT NULL';
  added constant text := format('SELECT %s, numeric_value::numeric AS v, 1 AS c FROM after_rows WHERE %s', cols, live);
  removed constant text := format('SELECT %s, -numeric_value::numeric AS v, -1 AS c FROM before_rows WHERE %s', cols, live);
  k record;
BEGIN
  -- A statement that changed no row (applyChanges' update branches usually) costs nothing here.
  IF TG_OP = 'DELETE' THEN
    IF NOT EXISTS (SELECT 1 FROM before_rows) THEN RETURN NULL; END IF;
  ELSIF NOT EXISTS (SELECT 1 FROM after_rows) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(organization_id) AS o, array_agg(site_id) AS s, array_agg(year) AS y INTO k
      FROM (SELECT DISTINCT organization_id, site_id, year FROM after_rows) x;
    PERFORM sdcs_lock_stripes_of(k.o, k.s, k.y);
    EXECUTE sdcs_value_delta_sql(added);
  ELSIF TG_OP = 'UPDATE' THEN
    SELECT array_agg(organization_id) AS o, array_agg(site_id) AS s, array_agg(year) AS y INTO k
      FROM (SELECT organization_id, site_id, year FROM after_rows
            UNION SELECT organization_id, site_id, year FROM before_rows) x;
    PERFORM sdcs_lock_stripes_of(k.o, k.s, k.y);
    EXECUTE sdcs_value_delta_sql(added || ' UNION ALL ' || removed);
  ELSE
    SELECT array_agg(organization_id) AS o, array_agg(site_id) AS s, array_agg(year) AS y INTO k
      FROM (SELECT DISTINCT organization_id, site_id, year FROM before_rows) x;
    PERFORM sdcs_lock_stripes_of(k.o, k.s, k.y);
    EXECUTE sdcs_value_delta_sql(removed);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sdcs_value_totals_form_sites() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  signs text;
  k record;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    -- The form-sites whose activation changed: set difference, not a join (decision 144).
    IF NOT EXISTS (SELECT id, active FROM after_rows EXCEPT SELECT id, active FROM before_rows) THEN
      RETURN NULL;
    END IF;
    SELECT array_agg(organization_id) AS o, array_agg(site_id) AS s, array_agg(year) AS y INTO k
      FROM (SELECT id, organization_id, site_id, year, active FROM after_rows
            EXCEPT SELECT id, organization_id, site_id, year, active FROM before_rows) x;
    PERFORM sdcs_lock_stripes_of(k.o, k.s, k.y);
    signs := 'SELECT n.id, n.organization_id, CASE WHEN n.active THEN 1 ELSE -1 END AS sign
                FROM (SELECT id, organization_id, active FROM after_rows
                      EXCEPT SELECT id, organization_id, active FROM before_rows) n';
  ELSE
    IF NOT EXISTS (SELECT 1 FROM before_rows WHERE NOT active) THEN RETURN NULL; END IF;
    SELECT array_agg(organization_id) AS o, array_agg(site_id) AS s, array_agg(year) AS y INTO k
      FROM before_rows WHERE NOT active;
    PERFORM sdcs_lock_stripes_of(k.o, k.s, k.y);
    signs := 'SELECT o.id, o.organization_id, 1 AS sign FROM before_rows o WHERE NOT o.active';
  END IF;
  -- The form-site's own change is what counts here, not the statement's inactive check (a
  -- deactivated form-site's values are subtracted although it is now inactive): the source
  -- gives a null submission id, which that check lets through.
  EXECUTE sdcs_value_delta_sql(format($s$
    SELECT v.organization_id, v.site_id, v.element_id, v.year, v.status, v.period_unit,
           NULL::uuid AS form_submission_id, f.sign * v.numeric_value::numeric AS v, f.sign AS c
      FROM (%s) f
      JOIN form_submissions sub ON sub.organization_id = f.organization_id AND sub.form_site_id = f.id
      JOIN form_element_submissions v ON v.organization_id = sub.organization_id AND v.form_submission_id = sub.id
     WHERE v.deleted_at IS NULL AND v.numeric_value IS NOT NULL $s$, signs));
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sdcs_value_totals_sites_moved() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  moved record;
  n integer;
BEGIN
  SELECT count(*) INTO n FROM after_rows a JOIN before_rows b ON b.id = a.id
   WHERE a.parent_id IS DISTINCT FROM b.parent_id;
  IF n = 0 THEN RETURN NULL; END IF;
  IF n > 1 THEN
    FOR moved IN SELECT DISTINCT organization_id FROM after_rows ORDER BY 1 LOOP
      PERFORM sdcs_rebuild_value_totals(moved.organization_id);
    END LOOP;
    RETURN NULL;
  END IF;
  SELECT a.id, a.organization_id, a.parent_id AS new_parent, b.parent_id AS old_parent INTO moved
    FROM after_rows a JOIN before_rows b ON b.id = a.id WHERE a.parent_id IS DISTINCT FROM b.parent_id;
  PERFORM sdcs_lock_value_totals(moved.organization_id);
  -- Each stripe of the moved subtree leaves the same stripe of the old ancestors and joins the new.
  INSERT INTO value_totals AS t (organization_id, site_id, element_id, year, status, period_unit, stripe, total, value_count)
  SELECT moved.organization_id, x.ancestor_id, m.element_id, m.year, m.status, m.period_unit, m.stripe,
         sum(x.sign * m.total), sum(x.sign * m.value_count)
    FROM value_totals m
    JOIN (SELECT ancestor_id, -1 AS sign
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[coalesce(moved.old_parent, moved.organization_id)])
          UNION ALL
          SELECT ancestor_id, 1
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[coalesce(moved.new_parent, moved.organization_id)])) x
      ON true
   WHERE m.organization_id = moved.organization_id AND m.site_id = moved.id
   GROUP BY 1, 2, 3, 4, 5, 6, 7
   ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (organization_id, site_id, element_id, year, status, period_unit, stripe) DO UPDATE
    SET total = t.total + excluded.total, value_count = t.value_count + excluded.value_count;
  RETURN NULL;
END $$;

-- ---------------------------------------------------------------------------------------------
-- value_site_stats and value_subtree_stats

CREATE OR REPLACE FUNCTION sdcs_refresh_value_site_stats(org uuid, sites uuid[], elements uuid[], years integer[])
RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp SET enable_seqscan = off AS $$
DECLARE
  stripe_to smallint;
BEGIN
  stripe_to := sdcs_lock_stripes(org, ARRAY(SELECT sdcs_aggregate_stripe(s, y) FROM unnest(sites, years) k(s, y)));
  WITH k AS (SELECT DISTINCT * FROM unnest(sites, elements, years) k(site_id, element_id, year)),
  old AS (
    SELECT s.site_id, s.element_id, s.year, s.period_unit, s.value_count, s.total, s.mean, s.last_value
      FROM k CROSS JOIN LATERAL (
        SELECT s.* FROM value_site_stats s
         WHERE s.organization_id = org AND s.site_id = k.site_id AND s.element_id = k.element_id AND s.year = k.year
        OFFSET 0) s
  ),
  fresh AS (SELECT * FROM sdcs_fresh_value_site_stats(org, sites, elements, years)),
  diff AS (
    SELECT coalesce(f.site_id, o.site_id) AS site_id, coalesce(f.element_id, o.element_id) AS element_id,
           coalesce(f.year, o.year) AS year, coalesce(f.period_unit, o.period_unit) AS period_unit,
           (f.site_id IS NOT NULL)::integer - (o.site_id IS NOT NULL)::integer AS site_count,
           coalesce(f.value_count, 0) - coalesce(o.value_count, 0) AS value_count,
           coalesce(f.total, 0) - coalesce(o.total, 0) AS total,
           coalesce(f.mean, 0) - coalesce(o.mean, 0) AS mean_sum,
           coalesce(f.last_value, 0) - coalesce(o.last_value, 0) AS last_sum,
           f.site_id IS NULL AS gone
      FROM fresh f
      FULL JOIN old o ON o.site_id = f.site_id AND o.element_id = f.element_id AND o.year = f.year
       AND o.period_unit = f.period_unit
     WHERE f.site_id IS NULL OR o.site_id IS NULL
        OR (f.value_count, f.total, f.mean, f.last_value) IS DISTINCT FROM (o.value_count, o.total, o.mean, o.last_value)
  ),
  written AS (
    INSERT INTO value_site_stats AS s (organization_id, site_id, element_id, year, period_unit, value_count, total, mean, last_value)
    SELECT org, f.site_id, f.element_id, f.year, f.period_unit, f.value_count, f.total, f.mean, f.last_value
      FROM fresh f
      JOIN diff d ON d.site_id = f.site_id AND d.element_id = f.element_id AND d.year = f.year AND d.period_unit = f.period_unit
     ORDER BY 2, 3, 4, 5
    ON CONFLICT (organization_id, site_id, element_id, year, period_unit) DO UPDATE
      SET value_count = excluded.value_count, total = excluded.total, mean = excluded.mean, last_value = excluded.last_value
  ),
  dropped AS (
    DELETE FROM value_site_stats s USING diff d
     WHERE d.gone AND s.organization_id = org AND s.site_id = d.site_id AND s.element_id = d.element_id
       AND s.year = d.year AND s.period_unit = d.period_unit
  ),
  up AS (SELECT * FROM sdcs_site_ancestors(org, sites))
  INSERT INTO value_subtree_stats AS t (organization_id, site_id, element_id, year, period_unit, stripe, site_count, value_count, total, mean_sum, last_sum)
  SELECT org, up.ancestor_id, d.element_id, d.year, d.period_unit, stripe_to,
         sum(d.site_count), sum(d.value_count), sum(d.total), sum(d.mean_sum), sum(d.last_sum)
    FROM diff d JOIN up ON up.site_id = d.site_id
   GROUP BY 1, 2, 3, 4, 5, 6
   ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (organization_id, site_id, element_id, year, period_unit, stripe) DO UPDATE
    SET site_count = t.site_count + excluded.site_count, value_count = t.value_count + excluded.value_count,
        total = t.total + excluded.total, mean_sum = t.mean_sum + excluded.mean_sum,
        last_sum = t.last_sum + excluded.last_sum;
END $$;

CREATE OR REPLACE FUNCTION sdcs_value_site_stats_sites_moved() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  moved record;
  n integer;
BEGIN
  SELECT count(*) INTO n FROM after_rows a JOIN before_rows b ON b.id = a.id
   WHERE a.parent_id IS DISTINCT FROM b.parent_id;
  IF n = 0 THEN RETURN NULL; END IF;
  IF n > 1 THEN
    FOR moved IN SELECT DISTINCT organization_id FROM after_rows ORDER BY 1 LOOP
      PERFORM sdcs_rebuild_value_site_stats(moved.organization_id);
    END LOOP;
    RETURN NULL;
  END IF;
  SELECT a.id, a.organization_id, a.parent_id AS new_parent, b.parent_id AS old_parent INTO moved
    FROM after_rows a JOIN before_rows b ON b.id = a.id WHERE a.parent_id IS DISTINCT FROM b.parent_id;
  PERFORM sdcs_lock_value_totals(moved.organization_id);
  INSERT INTO value_subtree_stats AS t (organization_id, site_id, element_id, year, period_unit, stripe, site_count, value_count, total, mean_sum, last_sum)
  SELECT moved.organization_id, x.ancestor_id, m.element_id, m.year, m.period_unit, m.stripe,
         sum(x.sign * m.site_count), sum(x.sign * m.value_count), sum(x.sign * m.total),
         sum(x.sign * m.mean_sum), sum(x.sign * m.last_sum)
    FROM value_subtree_stats m
    JOIN (SELECT ancestor_id, -1 AS sign
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[coalesce(moved.old_parent, moved.organization_id)])
          UNION ALL
          SELECT ancestor_id, 1
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[coalesce(moved.new_parent, moved.organization_id)])) x
      ON true
   WHERE m.organization_id = moved.organization_id AND m.site_id = moved.id
   GROUP BY 1, 2, 3, 4, 5, 6
   ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (organization_id, site_id, element_id, year, period_unit, stripe) DO UPDATE
    SET site_count = t.site_count + excluded.site_count, value_count = t.value_count + excluded.value_count,
        total = t.total + excluded.total, mean_sum = t.mean_sum + excluded.mean_sum,
        last_sum = t.last_sum + excluded.last_sum;
  RETURN NULL;
END $$;

-- ---------------------------------------------------------------------------------------------
-- completeness_cells and completeness_subtree

CREATE OR REPLACE FUNCTION sdcs_refresh_completeness(org uuid, ids uuid[]) RETURNS void LANGUAGE plpgsql
SECURITY DEFINER SET search_path = public, pg_temp SET enable_seqscan = off AS $$
DECLARE
  stripe_to smallint;
BEGIN
  stripe_to := sdcs_lock_form_site_stripes(org, ids);
  WITH fresh AS (SELECT * FROM sdcs_fresh_completeness_cells(org, ids)),
  old AS (
    SELECT c.form_site_id, c.period_unit, c.site_id, c.form_id, c.year, c.status, c.on_time
      FROM (SELECT DISTINCT unnest(ids)) k(id)
      CROSS JOIN LATERAL (
        SELECT c.* FROM completeness_cells c WHERE c.organization_id = org AND c.form_site_id = k.id OFFSET 0) c
  ),
  -- Rows that differ, matched on their key (a cell's status changed: its old row out, new in).
  pairs AS (
    SELECT f.form_site_id AS f_id, f.period_unit AS f_unit, f.site_id AS f_site, f.form_id AS f_form,
           f.year AS f_year, f.status AS f_status, f.on_time AS f_on_time,
           o.form_site_id AS o_id, o.period_unit AS o_unit, o.site_id AS o_site, o.form_id AS o_form,
           o.year AS o_year, o.status AS o_status, o.on_time AS o_on_time
      FROM fresh f
      FULL JOIN old o ON o.form_site_id = f.form_site_id AND o.period_unit = f.period_unit
     WHERE f.form_site_id IS NULL OR o.form_site_id IS NULL
        OR (f.site_id, f.form_id, f.year, f.status, f.on_time) IS DISTINCT FROM (o.site_id, o.form_id, o.year, o.status, o.on_time)
  ),
  changed AS (
    SELECT f_id AS form_site_id, f_unit AS period_unit, f_site AS site_id, f_form AS form_id, f_year AS year,
           f_status AS status, f_on_time AS on_time, 1 AS sign, false AS gone
      FROM pairs WHERE f_id IS NOT NULL
    UNION ALL
    SELECT o_id, o_unit, o_site, o_form, o_year, o_status, o_on_time, -1, f_id IS NULL
      FROM pairs WHERE o_id IS NOT NULL
  ),
  written AS (
    INSERT INTO completeness_cells AS c (organization_id, form_site_id, period_unit, site_id, form_id, year, status, on_time)
    SELECT org, x.form_site_id, x.period_unit, x.site_id, x.form_id, x.year, x.status, x.on_time
      FROM changed x WHERE x.sign = 1
     ORDER BY 2, 3
    ON CONFLICT (organization_id, form_site_id, period_unit) DO UPDATE
      SET site_id = excluded.site_id, form_id = excluded.form_id, year = excluded.year,
          status = excluded.status, on_time = excluded.on_time
  ),
  dropped AS (
    DELETE FROM completeness_cells c USING changed x
     WHERE x.gone AND c.organization_id = org AND c.form_site_id = x.form_site_id AND c.period_unit = x.period_unit
       AND c.form_site_id = ANY (ARRAY(SELECT DISTINCT y.form_site_id FROM changed y WHERE y.gone))
  ),
  up AS (
    SELECT a.* FROM sdcs_site_ancestors(org, ARRAY(
      SELECT DISTINCT x.site_id FROM (SELECT DISTINCT site_id FROM changed) x
       CROSS JOIN LATERAL (SELECT 1 FROM sites s WHERE s.organization_id = org AND s.id = x.site_id OFFSET 0) s)) a
  )
  INSERT INTO completeness_subtree AS t (organization_id, site_id, form_id, year, period_unit, stripe, form_sites, complete, partial, no_activity, on_time)
  SELECT org, up.ancestor_id, x.form_id, x.year, x.period_unit, stripe_to,
         sum(x.sign * (x.period_unit = 0)::integer), sum(x.sign * (x.status = 'COMPLETE' IS TRUE)::integer),
         sum(x.sign * (x.status = 'PARTIAL' IS TRUE)::integer), sum(x.sign * (x.status = 'NO_ACTIVITY' IS TRUE)::integer),
         sum(x.sign * x.on_time::integer)
    FROM changed x JOIN up ON up.site_id = x.site_id
   GROUP BY 1, 2, 3, 4, 5, 6
   ORDER BY 1, 3, 4, 2, 5, 6
  ON CONFLICT (organization_id, form_id, year, site_id, period_unit, stripe) DO UPDATE
    SET form_sites = t.form_sites + excluded.form_sites, complete = t.complete + excluded.complete,
        partial = t.partial + excluded.partial, no_activity = t.no_activity + excluded.no_activity,
        on_time = t.on_time + excluded.on_time;
END $$;

CREATE OR REPLACE FUNCTION sdcs_refresh_completeness_at(org uuid, ids uuid[], periods integer[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  stripe_to smallint;
BEGIN
  stripe_to := sdcs_lock_form_site_stripes(org, ids);
  WITH fresh AS (SELECT * FROM sdcs_fresh_completeness_cells_at(org, ids, periods)),
  old AS (
    SELECT c.form_site_id, c.period_unit, c.site_id, c.form_id, c.year, c.status, c.on_time
      FROM (SELECT DISTINCT * FROM unnest(ids, periods)) k(id, unit)
      CROSS JOIN LATERAL (
        SELECT c.* FROM completeness_cells c
         WHERE c.organization_id = org AND c.form_site_id = k.id AND c.period_unit = k.unit OFFSET 0) c
  ),
  pairs AS (
    SELECT f.form_site_id AS f_id, f.period_unit AS f_unit, f.site_id AS f_site, f.form_id AS f_form,
           f.year AS f_year, f.status AS f_status, f.on_time AS f_on_time,
           o.form_site_id AS o_id, o.period_unit AS o_unit, o.site_id AS o_site, o.form_id AS o_form,
           o.year AS o_year, o.status AS o_status, o.on_time AS o_on_time
      FROM fresh f
      FULL JOIN old o ON o.form_site_id = f.form_site_id AND o.period_unit = f.period_unit
     WHERE f.form_site_id IS NULL OR o.form_site_id IS NULL
        OR (f.site_id, f.form_id, f.year, f.status, f.on_time) IS DISTINCT FROM (o.site_id, o.form_id, o.year, o.status, o.on_time)
  ),
  changed AS (
    SELECT f_id AS form_site_id, f_unit AS period_unit, f_site AS site_id, f_form AS form_id, f_year AS year,
           f_status AS status, f_on_time AS on_time, 1 AS sign, false AS gone
      FROM pairs WHERE f_id IS NOT NULL
    UNION ALL
    SELECT o_id, o_unit, o_site, o_form, o_year, o_status, o_on_time, -1, f_id IS NULL
      FROM pairs WHERE o_id IS NOT NULL
  ),
  written AS (
    INSERT INTO completeness_cells AS c (organization_id, form_site_id, period_unit, site_id, form_id, year, status, on_time)
    SELECT org, x.form_site_id, x.period_unit, x.site_id, x.form_id, x.year, x.status, x.on_time
      FROM changed x WHERE x.sign = 1
     ORDER BY 2, 3
    ON CONFLICT (organization_id, form_site_id, period_unit) DO UPDATE
      SET site_id = excluded.site_id, form_id = excluded.form_id, year = excluded.year,
          status = excluded.status, on_time = excluded.on_time
  ),
  dropped AS (
    DELETE FROM completeness_cells c USING changed x
     WHERE x.gone AND c.organization_id = org AND c.form_site_id = x.form_site_id AND c.period_unit = x.period_unit
       AND c.form_site_id = ANY (ARRAY(SELECT DISTINCT y.form_site_id FROM changed y WHERE y.gone))
  ),
  up AS (
    SELECT a.* FROM sdcs_site_ancestors(org, ARRAY(
      SELECT DISTINCT x.site_id FROM (SELECT DISTINCT site_id FROM changed) x
       CROSS JOIN LATERAL (SELECT 1 FROM sites s WHERE s.organization_id = org AND s.id = x.site_id OFFSET 0) s)) a
  )
  INSERT INTO completeness_subtree AS t (organization_id, site_id, form_id, year, period_unit, stripe, form_sites, complete, partial, no_activity, on_time)
  SELECT org, up.ancestor_id, x.form_id, x.year, x.period_unit, stripe_to,
         sum(x.sign * (x.period_unit = 0)::integer), sum(x.sign * (x.status = 'COMPLETE' IS TRUE)::integer),
         sum(x.sign * (x.status = 'PARTIAL' IS TRUE)::integer), sum(x.sign * (x.status = 'NO_ACTIVITY' IS TRUE)::integer),
         sum(x.sign * x.on_time::integer)
    FROM changed x JOIN up ON up.site_id = x.site_id
   GROUP BY 1, 2, 3, 4, 5, 6
   ORDER BY 1, 3, 4, 2, 5, 6
  ON CONFLICT (organization_id, form_id, year, site_id, period_unit, stripe) DO UPDATE
    SET form_sites = t.form_sites + excluded.form_sites, complete = t.complete + excluded.complete,
        partial = t.partial + excluded.partial, no_activity = t.no_activity + excluded.no_activity,
        on_time = t.on_time + excluded.on_time;
END $$;

CREATE OR REPLACE FUNCTION sdcs_completeness_sites_moved() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  moved record;
  n integer;
BEGIN
  SELECT count(*) INTO n FROM after_rows a JOIN before_rows b ON b.id = a.id
   WHERE a.parent_id IS DISTINCT FROM b.parent_id;
  IF n = 0 THEN RETURN NULL; END IF;
  IF n > 1 THEN
    FOR moved IN SELECT DISTINCT organization_id FROM after_rows ORDER BY 1 LOOP
      PERFORM sdcs_rebuild_completeness(moved.organization_id);
    END LOOP;
    RETURN NULL;
  END IF;
  SELECT a.id, a.organization_id, a.parent_id AS new_parent, b.parent_id AS old_parent INTO moved
    FROM after_rows a JOIN before_rows b ON b.id = a.id WHERE a.parent_id IS DISTINCT FROM b.parent_id;
  PERFORM sdcs_lock_value_totals(moved.organization_id);
  INSERT INTO completeness_subtree AS t (organization_id, site_id, form_id, year, period_unit, stripe, form_sites, complete, partial, no_activity, on_time)
  SELECT moved.organization_id, x.ancestor_id, m.form_id, m.year, m.period_unit, m.stripe,
         sum(x.sign * m.form_sites), sum(x.sign * m.complete), sum(x.sign * m.partial),
         sum(x.sign * m.no_activity), sum(x.sign * m.on_time)
    FROM completeness_subtree m
    JOIN (SELECT ancestor_id, -1 AS sign
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[coalesce(moved.old_parent, moved.organization_id)])
          UNION ALL
          SELECT ancestor_id, 1
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[coalesce(moved.new_parent, moved.organization_id)])) x
      ON true
   WHERE m.organization_id = moved.organization_id AND m.site_id = moved.id
   GROUP BY 1, 2, 3, 4, 5, 6
   ORDER BY 1, 3, 4, 2, 5, 6
  ON CONFLICT (organization_id, form_id, year, site_id, period_unit, stripe) DO UPDATE
    SET form_sites = t.form_sites + excluded.form_sites, complete = t.complete + excluded.complete,
        partial = t.partial + excluded.partial, no_activity = t.no_activity + excluded.no_activity,
        on_time = t.on_time + excluded.on_time;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sdcs_completeness_sites_deleted() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  o record;
BEGIN
  FOR o IN SELECT DISTINCT organization_id FROM before_rows ORDER BY 1 LOOP
    IF NOT EXISTS (SELECT 1 FROM organizations WHERE id = o.organization_id) THEN
      DELETE FROM completeness_subtree WHERE organization_id = o.organization_id;
      DELETE FROM completeness_cells WHERE organization_id = o.organization_id;
      CONTINUE;
    END IF;
    PERFORM sdcs_lock_value_totals(o.organization_id);
    INSERT INTO completeness_subtree AS t (organization_id, site_id, form_id, year, period_unit, stripe, form_sites, complete, partial, no_activity, on_time)
    SELECT o.organization_id, a.ancestor_id, m.form_id, m.year, m.period_unit, m.stripe,
           -sum(m.form_sites), -sum(m.complete), -sum(m.partial), -sum(m.no_activity), -sum(m.on_time)
      FROM before_rows d
      JOIN completeness_subtree m ON m.organization_id = o.organization_id AND m.site_id = d.id
      JOIN sdcs_site_ancestors(o.organization_id, ARRAY(
             SELECT DISTINCT coalesce(d.parent_id, o.organization_id) FROM before_rows d
              WHERE d.organization_id = o.organization_id
                AND NOT EXISTS (SELECT 1 FROM before_rows p WHERE p.id = d.parent_id))) a
        ON a.site_id = coalesce(d.parent_id, o.organization_id)
     WHERE d.organization_id = o.organization_id
     GROUP BY 1, 2, 3, 4, 5, 6
     ORDER BY 1, 3, 4, 2, 5, 6
    ON CONFLICT (organization_id, form_id, year, site_id, period_unit, stripe) DO UPDATE
      SET form_sites = t.form_sites + excluded.form_sites, complete = t.complete + excluded.complete,
          partial = t.partial + excluded.partial, no_activity = t.no_activity + excluded.no_activity,
          on_time = t.on_time + excluded.on_time;
    DELETE FROM completeness_subtree m USING before_rows d
     WHERE m.organization_id = o.organization_id AND d.organization_id = o.organization_id AND m.site_id = d.id;
    DELETE FROM completeness_cells c USING before_rows d
     WHERE c.organization_id = o.organization_id AND d.organization_id = o.organization_id AND c.site_id = d.id;
  END LOOP;
  RETURN NULL;
END $$;
