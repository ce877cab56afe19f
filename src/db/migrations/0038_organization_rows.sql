-- A row for the whole organization in every subtree table (issue 30).
--
-- The subtree tables (value_totals, value_subtree_stats, completeness_subtree) have a row per site
-- and each of its ancestors, so a tree under one root answers the whole organization from the
-- root's rows. Many organizations have no such root: a retailer's 10,000 stores are all top-level
-- sites, and the whole organization was the sum of 10,000 sites' rows, read on every request
-- (completeness totals over 10,000 flat sites: 86 ms of a 140 ms request, growing with the sites).
--
-- Now the organization itself is the last ancestor of every site: its rows carry, as site_id, the
-- organization's id (no site has it: both are random UUIDs), and sum every site's. The readers
-- cover the whole organization with that one row (indicators.scope.ts, completeness.kept.ts).
--
-- sdcs_site_ancestors, which every trigger, rebuild and recomputation spreads its rows with, adds
-- the pair (site, organization) for every site given; given the organization's id itself, it
-- answers that id alone. A move spreads its subtree's rows over the ancestors of the old parent
-- (the organization, for a top-level site) with -1 and of the new one with +1, so the organization's
-- row is unchanged, as it must be; a deleted site's counts leave its parent's ancestors, or the
-- organization's row for a top-level site. The rows of the organizations stored so far are the sums
-- of their top-level sites' rows (no value, cell or form-site belongs to a site that no longer
-- exists: sites with data cannot be deleted).
CREATE OR REPLACE FUNCTION sdcs_site_ancestors(org uuid, ids uuid[])
RETURNS TABLE (site_id uuid, ancestor_id uuid) LANGUAGE sql STABLE AS $$
  WITH RECURSIVE up(site_id, ancestor_id) AS (
    SELECT s, s FROM unnest(ids) AS s
    UNION
    SELECT up.site_id, p.parent_id
      FROM up CROSS JOIN LATERAL (
        SELECT p.parent_id FROM sites p WHERE p.organization_id = org AND p.id = up.ancestor_id OFFSET 0) p
     WHERE p.parent_id IS NOT NULL
  )
  SELECT site_id, ancestor_id FROM up
  UNION
  SELECT s, org FROM unnest(ids) AS s
$$;

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
  INSERT INTO value_totals AS t (organization_id, site_id, element_id, year, status, period_unit, total, value_count)
  SELECT moved.organization_id, x.ancestor_id, m.element_id, m.year, m.status, m.period_unit,
         sum(x.sign * m.total), sum(x.sign * m.value_count)
    FROM value_totals m
    JOIN (SELECT ancestor_id, -1 AS sign
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[coalesce(moved.old_parent, moved.organization_id)])
          UNION ALL
          SELECT ancestor_id, 1
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[coalesce(moved.new_parent, moved.organization_id)])) x
      ON true
   WHERE m.organization_id = moved.organization_id AND m.site_id = moved.id
   GROUP BY 1, 2, 3, 4, 5, 6
   ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (organization_id, site_id, element_id, year, status, period_unit) DO UPDATE
    SET total = t.total + excluded.total, value_count = t.value_count + excluded.value_count;
  RETURN NULL;
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
  INSERT INTO value_subtree_stats AS t (organization_id, site_id, element_id, year, period_unit, site_count, value_count, total, mean_sum, last_sum)
  SELECT moved.organization_id, x.ancestor_id, m.element_id, m.year, m.period_unit,
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
   GROUP BY 1, 2, 3, 4, 5
   ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (organization_id, site_id, element_id, year, period_unit) DO UPDATE
    SET site_count = t.site_count + excluded.site_count, value_count = t.value_count + excluded.value_count,
        total = t.total + excluded.total, mean_sum = t.mean_sum + excluded.mean_sum,
        last_sum = t.last_sum + excluded.last_sum;
  RETURN NULL;
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
  INSERT INTO completeness_subtree AS t (organization_id, site_id, form_id, year, period_unit, form_sites, complete, partial, no_activity, on_time)
  SELECT moved.organization_id, x.ancestor_id, m.form_id, m.year, m.period_unit,
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
   GROUP BY 1, 2, 3, 4, 5
   ORDER BY 1, 3, 4, 2, 5
  ON CONFLICT (organization_id, form_id, year, site_id, period_unit) DO UPDATE
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
    INSERT INTO completeness_subtree AS t (organization_id, site_id, form_id, year, period_unit, form_sites, complete, partial, no_activity, on_time)
    SELECT o.organization_id, a.ancestor_id, m.form_id, m.year, m.period_unit,
           -sum(m.form_sites), -sum(m.complete), -sum(m.partial), -sum(m.no_activity), -sum(m.on_time)
      FROM before_rows d
      JOIN completeness_subtree m ON m.organization_id = o.organization_id AND m.site_id = d.id
      JOIN sdcs_site_ancestors(o.organization_id, ARRAY(
             SELECT DISTINCT coalesce(d.parent_id, o.organization_id) FROM before_rows d
              WHERE d.organization_id = o.organization_id
                AND NOT EXISTS (SELECT 1 FROM before_rows p WHERE p.id = d.parent_id))) a
        ON a.site_id = coalesce(d.parent_id, o.organization_id)
     WHERE d.organization_id = o.organization_id
     GROUP BY 1, 2, 3, 4, 5
     ORDER BY 1, 3, 4, 2, 5
    ON CONFLICT (organization_id, form_id, year, site_id, period_unit) DO UPDATE
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

INSERT INTO value_totals (organization_id, site_id, element_id, year, status, period_unit, total, value_count)
SELECT t.organization_id, t.organization_id, t.element_id, t.year, t.status, t.period_unit, sum(t.total), sum(t.value_count)
  FROM value_totals t
  JOIN sites s ON s.organization_id = t.organization_id AND s.id = t.site_id AND s.parent_id IS NULL
 GROUP BY 1, 2, 3, 4, 5, 6
 ORDER BY 1, 2, 3, 4, 5, 6;

INSERT INTO value_subtree_stats (organization_id, site_id, element_id, year, period_unit, site_count, value_count, total, mean_sum, last_sum)
SELECT t.organization_id, t.organization_id, t.element_id, t.year, t.period_unit,
       sum(t.site_count), sum(t.value_count), sum(t.total), sum(t.mean_sum), sum(t.last_sum)
  FROM value_subtree_stats t
  JOIN sites s ON s.organization_id = t.organization_id AND s.id = t.site_id AND s.parent_id IS NULL
 GROUP BY 1, 2, 3, 4, 5
 ORDER BY 1, 2, 3, 4, 5;

INSERT INTO completeness_subtree (organization_id, site_id, form_id, year, period_unit, form_sites, complete, partial, no_activity, on_time)
SELECT t.organization_id, t.organization_id, t.form_id, t.year, t.period_unit,
       sum(t.form_sites), sum(t.complete), sum(t.partial), sum(t.no_activity), sum(t.on_time)
  FROM completeness_subtree t
  JOIN sites s ON s.organization_id = t.organization_id AND s.id = t.site_id AND s.parent_id IS NULL
 GROUP BY 1, 2, 3, 4, 5
 ORDER BY 1, 3, 4, 2, 5;
