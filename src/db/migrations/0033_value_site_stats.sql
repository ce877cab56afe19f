-- Pre-aggregated values for LAST and AVERAGE operands (issue 30; migration 0029 holds the SUMs).
--
-- A LAST operand adds up each site's latest period in scope, an AVERAGE operand each site's mean:
-- neither is a sum of values, so per-status sums cannot answer them. What is kept instead, for the
-- organization's default statuses (the statuses a request reads unless it names others):
--
--   value_site_stats     per site (its own values only), element, year and period unit (1..12, or
--                        0 for the whole year): count, exact sum, mean (sum / count, numeric) and the
--                        latest period's value (the greatest value of the latest period unit, as the
--                        direct computation picks it);
--   value_subtree_stats  per site AND each of its ancestors, the same keys: the sums over the sites
--                        of the subtree of the above (sites with values, values, total, means,
--                        latest values). These are sums over sites, so a region's row minus its
--                        children's rows is the region's own, as for value_totals.
--
-- What counts is what the direct computation counts: values not deleted, numeric, whose form-site
-- is active, with a status among the organization's default statuses.
--
-- Kept in the same transaction as every write: a statement that changes values (or activates,
-- deactivates or deletes a form-site) recomputes the per-site rows of every (site, element, year)
-- it touched from that site's values (a dozen rows through the index below), and adds the
-- differences to the subtree rows of the site and its ancestors. Moving a site moves its subtree
-- rows; changing the organization's default statuses rebuilds its rows. An element's aggregation
-- plays no part: every numeric element is kept. Same lock as value_totals.
CREATE TABLE value_site_stats (
  organization_id uuid NOT NULL,
  site_id uuid NOT NULL,
  element_id uuid NOT NULL,
  year integer NOT NULL,
  period_unit integer NOT NULL,
  value_count bigint NOT NULL,
  total numeric NOT NULL,
  mean numeric NOT NULL,
  last_value numeric NOT NULL,
  PRIMARY KEY (organization_id, site_id, element_id, year, period_unit)
);
SELECT sdcs_tenant_table('value_site_stats');

CREATE TABLE value_subtree_stats (
  organization_id uuid NOT NULL,
  site_id uuid NOT NULL,
  element_id uuid NOT NULL,
  year integer NOT NULL,
  period_unit integer NOT NULL,
  site_count bigint NOT NULL DEFAULT 0,
  value_count bigint NOT NULL DEFAULT 0,
  total numeric NOT NULL DEFAULT 0,
  mean_sum numeric NOT NULL DEFAULT 0,
  last_sum numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, site_id, element_id, year, period_unit)
);
SELECT sdcs_tenant_table('value_subtree_stats');

-- One site's values of one element and year, for the recomputation above.
CREATE INDEX form_element_submissions_site_stats_idx
  ON form_element_submissions (organization_id, site_id, element_id, year) WHERE deleted_at IS NULL;

-- The per-site rows computed from one organization's values, for the (site, element, year) keys
-- given (sites null: every key).
CREATE FUNCTION sdcs_fresh_value_site_stats(org uuid, sites uuid[], elements uuid[], years integer[])
RETURNS TABLE (site_id uuid, element_id uuid, year integer, period_unit integer, value_count bigint,
               total numeric, mean numeric, last_value numeric)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  WITH v AS (
    SELECT v.site_id, v.element_id, v.year, v.period_unit, v.numeric_value, v.status, v.form_submission_id
      FROM form_element_submissions v
     WHERE sites IS NULL AND v.organization_id = org AND v.deleted_at IS NULL
    UNION ALL
    -- One index lookup per key, whatever the planner thinks of the table's size: a bulk insert's
    -- trigger runs before any ANALYZE saw the rows, and a plan that scans the organization's
    -- values once per key (or all of them per write) grows with the organization. OFFSET 0
    -- keeps the lookup a subquery evaluated per key (not flattened into a join to reorder).
    SELECT v.site_id, v.element_id, v.year, v.period_unit, v.numeric_value, v.status, v.form_submission_id
      FROM (SELECT DISTINCT * FROM unnest(sites, elements, years)) k(site_id, element_id, year)
      CROSS JOIN LATERAL (
        SELECT v.* FROM form_element_submissions v
         WHERE v.organization_id = org AND v.site_id = k.site_id AND v.element_id = k.element_id
           AND v.year = k.year AND v.deleted_at IS NULL
        OFFSET 0) v
     WHERE sites IS NOT NULL
  )
  SELECT v.site_id, v.element_id, v.year, u.unit, count(*), sum(v.numeric_value::numeric),
         sum(v.numeric_value::numeric) / count(*),
         -- The latest period's value, the greatest of ties (as the direct computation's max).
         ((max(ARRAY[v.period_unit::float8, v.numeric_value]))[2])::numeric
    FROM v
    CROSS JOIN LATERAL (VALUES (v.period_unit::integer), (0)) u(unit)
   WHERE v.numeric_value IS NOT NULL
     AND v.status = ANY (coalesce((SELECT default_statuses FROM organizations WHERE id = org), '{}'::text[]))
     AND v.form_submission_id <> ALL (ARRAY(
       SELECT sub.id FROM form_sites fs
         JOIN form_submissions sub ON sub.organization_id = fs.organization_id AND sub.form_site_id = fs.id
        WHERE fs.organization_id = org AND NOT fs.active
          AND (sites IS NULL OR fs.site_id = ANY (ARRAY(SELECT DISTINCT unnest(sites))))))
   GROUP BY 1, 2, 3, 4
$$;

-- Recomputes the per-site rows of the (site, element, year) keys given and adds what changed to
-- the subtree rows of the sites and of their ancestors (upserts in key order, one statement).
-- Reads go through the indexes (no sequential scan of an organization's values or rows).
CREATE FUNCTION sdcs_refresh_value_site_stats(org uuid, sites uuid[], elements uuid[], years integer[])
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET enable_seqscan = off AS $$
BEGIN
  PERFORM sdcs_lock_value_totals(org);
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
  up AS (SELECT * FROM sdcs_site_ancestors(org, ARRAY(SELECT DISTINCT site_id FROM diff)))
  INSERT INTO value_subtree_stats AS t (organization_id, site_id, element_id, year, period_unit, site_count, value_count, total, mean_sum, last_sum)
  SELECT org, up.ancestor_id, d.element_id, d.year, d.period_unit,
         sum(d.site_count), sum(d.value_count), sum(d.total), sum(d.mean_sum), sum(d.last_sum)
    FROM diff d JOIN up ON up.site_id = d.site_id
   GROUP BY 1, 2, 3, 4, 5
   ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (organization_id, site_id, element_id, year, period_unit) DO UPDATE
    SET site_count = t.site_count + excluded.site_count, value_count = t.value_count + excluded.value_count,
        total = t.total + excluded.total, mean_sum = t.mean_sum + excluded.mean_sum,
        last_sum = t.last_sum + excluded.last_sum;
END $$;

-- The query that groups the keys a source yields as (organization_id, site_id, element_id, year)
-- per organization, in id order (run by the triggers: only they see their transition tables).
CREATE FUNCTION sdcs_value_site_stats_keys_sql(keys text) RETURNS text LANGUAGE sql IMMUTABLE AS $f$
  SELECT format($q$
    SELECT organization_id, array_agg(site_id) AS s, array_agg(element_id) AS e, array_agg(year) AS y
      FROM (SELECT DISTINCT organization_id, site_id, element_id, year FROM (%s) k) k
     GROUP BY 1 ORDER BY 1 $q$, keys)
$f$;

-- The value trigger: every (site, element, year) whose numeric values a statement changed.
CREATE FUNCTION sdcs_value_site_stats_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  cols constant text := 'organization_id, site_id, element_id, year';
  -- An update counts when something the rows depend on changed (not a timestamp, a comment).
  changed constant text := 'FROM after_rows n JOIN before_rows o ON o.id = n.id
     WHERE (n.numeric_value IS NOT NULL OR o.numeric_value IS NOT NULL)
       AND (o.status, o.numeric_value, o.deleted_at IS NULL, o.period_unit, o.site_id, o.element_id, o.year,
            o.form_submission_id)
           IS DISTINCT FROM (n.status, n.numeric_value, n.deleted_at IS NULL, n.period_unit, n.site_id,
            n.element_id, n.year, n.form_submission_id)';
  keys text;
  o record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT EXISTS (SELECT 1 FROM after_rows WHERE numeric_value IS NOT NULL) THEN RETURN NULL; END IF;
    keys := format('SELECT %s FROM after_rows WHERE numeric_value IS NOT NULL', cols);
  ELSIF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (SELECT 1 FROM after_rows) THEN RETURN NULL; END IF;
    keys := format('SELECT n.organization_id, n.site_id, n.element_id, n.year %s
                    UNION ALL SELECT o.organization_id, o.site_id, o.element_id, o.year %s', changed, changed);
  ELSE
    IF NOT EXISTS (SELECT 1 FROM before_rows WHERE numeric_value IS NOT NULL) THEN RETURN NULL; END IF;
    keys := format('SELECT %s FROM before_rows WHERE numeric_value IS NOT NULL', cols);
  END IF;
  FOR o IN EXECUTE sdcs_value_site_stats_keys_sql(keys) LOOP
    PERFORM sdcs_refresh_value_site_stats(o.organization_id, o.s, o.e, o.y);
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER form_element_submissions_stats_on_insert
  AFTER INSERT ON form_element_submissions REFERENCING NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_changed();
CREATE TRIGGER form_element_submissions_stats_on_update
  AFTER UPDATE ON form_element_submissions REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_changed();
CREATE TRIGGER form_element_submissions_stats_on_delete
  AFTER DELETE ON form_element_submissions REFERENCING OLD TABLE AS before_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_changed();

-- A form-site activated, deactivated, or deleted while inactive: the keys of its values.
CREATE FUNCTION sdcs_value_site_stats_form_sites() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  touched text;
  o record;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    touched := 'SELECT n.id, n.organization_id FROM after_rows n JOIN before_rows o ON o.id = n.id
                 WHERE o.active IS DISTINCT FROM n.active';
  ELSE
    touched := 'SELECT o.id, o.organization_id FROM before_rows o WHERE NOT o.active';
  END IF;
  FOR o IN EXECUTE sdcs_value_site_stats_keys_sql(format($s$
    SELECT v.organization_id, v.site_id, v.element_id, v.year
      FROM (%s) f
      JOIN form_submissions sub ON sub.organization_id = f.organization_id AND sub.form_site_id = f.id
      JOIN form_element_submissions v ON v.organization_id = sub.organization_id AND v.form_submission_id = sub.id
     WHERE v.deleted_at IS NULL AND v.numeric_value IS NOT NULL $s$, touched))
  LOOP
    PERFORM sdcs_refresh_value_site_stats(o.organization_id, o.s, o.e, o.y);
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER form_sites_stats_on_update
  AFTER UPDATE ON form_sites REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_form_sites();
CREATE TRIGGER form_sites_stats_on_delete
  AFTER DELETE ON form_sites REFERENCING OLD TABLE AS before_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_form_sites();

-- The subtree rows of one organization computed from its per-site rows as they should be.
CREATE FUNCTION sdcs_computed_value_subtree_stats(org uuid)
RETURNS TABLE (site_id uuid, element_id uuid, year integer, period_unit integer, site_count bigint,
               value_count bigint, total numeric, mean_sum numeric, last_sum numeric)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  WITH own AS (SELECT * FROM sdcs_fresh_value_site_stats(org, NULL, NULL, NULL))
  SELECT a.ancestor_id, o.element_id, o.year, o.period_unit, count(*), sum(o.value_count)::bigint,
         sum(o.total), sum(o.mean), sum(o.last_value)
    FROM own o
    JOIN sdcs_site_ancestors(org, ARRAY(SELECT DISTINCT site_id FROM own)) a ON a.site_id = o.site_id
   GROUP BY 1, 2, 3, 4
$$;

-- Replaces an organization's rows by the recomputed ones.
CREATE FUNCTION sdcs_rebuild_value_site_stats(org uuid) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM sdcs_lock_value_totals(org);
  DELETE FROM value_site_stats WHERE organization_id = org;
  DELETE FROM value_subtree_stats WHERE organization_id = org;
  INSERT INTO value_site_stats (organization_id, site_id, element_id, year, period_unit, value_count, total, mean, last_value)
  SELECT org, f.* FROM sdcs_fresh_value_site_stats(org, NULL, NULL, NULL) f ORDER BY 2, 3, 4, 5;
  INSERT INTO value_subtree_stats (organization_id, site_id, element_id, year, period_unit, site_count, value_count, total, mean_sum, last_sum)
  SELECT org, a.ancestor_id, s.element_id, s.year, s.period_unit, count(*), sum(s.value_count), sum(s.total),
         sum(s.mean), sum(s.last_value)
    FROM value_site_stats s
    JOIN sdcs_site_ancestors(org, ARRAY(SELECT DISTINCT site_id FROM value_site_stats WHERE organization_id = org)) a
      ON a.site_id = s.site_id
   WHERE s.organization_id = org
   GROUP BY 2, 3, 4, 5
   ORDER BY 2, 3, 4, 5;
END $$;

-- A site moved: its subtree rows leave the old ancestors and join the new ones (several sites
-- moved by one statement rebuild the organization), as for value_totals.
CREATE FUNCTION sdcs_value_site_stats_sites_moved() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
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
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[moved.old_parent]) WHERE moved.old_parent IS NOT NULL
          UNION ALL
          SELECT ancestor_id, 1
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[moved.new_parent]) WHERE moved.new_parent IS NOT NULL) x
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

CREATE TRIGGER sites_stats_on_update
  AFTER UPDATE ON sites REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_sites_moved();

-- The organization's default statuses changed: its rows are kept for the new ones.
CREATE FUNCTION sdcs_value_site_stats_statuses() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE o record;
BEGIN
  FOR o IN SELECT n.id FROM after_rows n JOIN before_rows b ON b.id = n.id
            WHERE n.default_statuses IS DISTINCT FROM b.default_statuses ORDER BY 1 LOOP
    PERFORM sdcs_rebuild_value_site_stats(o.id);
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER organizations_stats_on_update
  AFTER UPDATE ON organizations REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_statuses();

-- The rows of the values stored before this migration.
DO $$
DECLARE o record;
BEGIN
  FOR o IN SELECT id FROM organizations ORDER BY id LOOP
    PERFORM sdcs_rebuild_value_site_stats(o.id);
  END LOOP;
END $$;
