-- Pre-aggregated values (issue 30). `value_totals` holds, for every site AND for each of its
-- ancestors, the exact sum and count of the live numeric values of the site's subtree per
-- (element, year, status, period unit): a row of site X sums the values of X and of all its
-- descendants. The root, a region and a plant each answer a SUM operand from a handful of rows.
--
-- What counts is exactly what the direct computation counts (values.repository.ts): values not
-- deleted, with a numeric value, whose form-site is active. Sums are `numeric`, so they are exact
-- whatever the order the deltas arrive in (each double is taken at its 15 significant digits).
--
-- Kept in the same transaction as every write by statement-level triggers over transition tables
-- (one grouped statement per written statement, whatever its size): values inserted, updated
-- (revived, rewritten, status changed by a review, marked deleted) or deleted; form-sites
-- activated or deactivated (or deleted while inactive); sites moved in the tree.
--
-- Writers of one organization take a transaction-scoped advisory lock before changing its rows:
-- ancestors' rows are hot (every write touches the root's), and a write statement can fire
-- several triggers (applyChanges inserts and updates in one statement). With the lock, two
-- transactions never hold some of the same rows each while waiting for the other's: no deadlock,
-- and the row upserts (in key order) lose no update.
CREATE TABLE value_totals (
  organization_id uuid NOT NULL,
  -- The site whose subtree (itself and every descendant) these values belong to.
  site_id uuid NOT NULL,
  element_id uuid NOT NULL,
  year integer NOT NULL,
  status text NOT NULL,
  period_unit integer NOT NULL,
  total numeric NOT NULL DEFAULT 0,
  value_count bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, site_id, element_id, year, status, period_unit)
);
SELECT sdcs_tenant_table('value_totals');

-- (site, ancestor) pairs, the site itself included, for the given sites of one organization.
CREATE FUNCTION sdcs_site_ancestors(org uuid, ids uuid[])
RETURNS TABLE (site_id uuid, ancestor_id uuid) LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp AS $$
  WITH RECURSIVE up(site_id, ancestor_id) AS (
    SELECT s, s FROM unnest(ids) AS s
    UNION
    SELECT up.site_id, p.parent_id FROM up JOIN sites p ON p.id = up.ancestor_id
     WHERE p.organization_id = org AND p.parent_id IS NOT NULL
  )
  SELECT site_id, ancestor_id FROM up
$$;

-- The serialization of one organization's aggregate writers (see above).
CREATE FUNCTION sdcs_lock_value_totals(org uuid) RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(hashtextextended('sdcs.value_totals:' || org::text, 0))
$$;

-- The statement that adds a source of signed contributions to the totals of the sites and of
-- their ancestors. The source yields (organization_id, site_id, element_id, year, status,
-- period_unit, form_submission_id, v, c): v the value (negated to subtract it), c ±1. The
-- contributions of submissions of inactive form-sites are dropped (their form-site's activation
-- adds them); the rest is grouped per site and key, spread over the ancestors and upserted in key
-- order, one statement.
CREATE FUNCTION sdcs_value_delta_sql(source text) RETURNS text LANGUAGE sql IMMUTABLE AS $f$
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
    INSERT INTO value_totals AS t (organization_id, site_id, element_id, year, status, period_unit, total, value_count)
    SELECT d.organization_id, up.ancestor_id, d.element_id, d.year, d.status, d.period_unit,
           sum(d.total), sum(d.value_count)
      FROM d JOIN up ON up.organization_id = d.organization_id AND up.site_id = d.site_id
     GROUP BY 1, 2, 3, 4, 5, 6
     ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (organization_id, site_id, element_id, year, status, period_unit) DO UPDATE
      SET total = t.total + excluded.total, value_count = t.value_count + excluded.value_count
  $q$, source)
$f$;

-- Locks the organizations of a transition table (see above), in id order.
CREATE FUNCTION sdcs_lock_value_totals_of(orgs uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE org uuid;
BEGIN
  FOREACH org IN ARRAY ARRAY(SELECT DISTINCT o FROM unnest(orgs) o ORDER BY 1) LOOP
    PERFORM sdcs_lock_value_totals(org);
  END LOOP;
END $$;

-- The value trigger: contributions of the rows after the statement minus those before.
CREATE FUNCTION sdcs_value_totals_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  cols constant text := 'organization_id, site_id, element_id, year, status, period_unit, form_submission_id';
  live constant text := 'deleted_at IS NULL AND numeric_value IS NOT NULL';
  added constant text := format('SELECT %s, numeric_value::numeric AS v, 1 AS c FROM after_rows WHERE %s', cols, live);
  removed constant text := format('SELECT %s, -numeric_value::numeric AS v, -1 AS c FROM before_rows WHERE %s', cols, live);
BEGIN
  -- A statement that changed no row (applyChanges' update branches usually) costs nothing here.
  IF TG_OP = 'DELETE' THEN
    IF NOT EXISTS (SELECT 1 FROM before_rows) THEN RETURN NULL; END IF;
  ELSIF NOT EXISTS (SELECT 1 FROM after_rows) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    PERFORM sdcs_lock_value_totals_of(ARRAY(SELECT DISTINCT organization_id FROM after_rows));
    EXECUTE sdcs_value_delta_sql(added);
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM sdcs_lock_value_totals_of(ARRAY(SELECT DISTINCT organization_id FROM after_rows));
    EXECUTE sdcs_value_delta_sql(added || ' UNION ALL ' || removed);
  ELSE
    PERFORM sdcs_lock_value_totals_of(ARRAY(SELECT DISTINCT organization_id FROM before_rows));
    EXECUTE sdcs_value_delta_sql(removed);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER form_element_submissions_totals_on_insert
  AFTER INSERT ON form_element_submissions REFERENCING NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_totals_changed();
CREATE TRIGGER form_element_submissions_totals_on_update
  AFTER UPDATE ON form_element_submissions REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_totals_changed();
CREATE TRIGGER form_element_submissions_totals_on_delete
  AFTER DELETE ON form_element_submissions REFERENCING OLD TABLE AS before_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_totals_changed();

-- A form-site activated adds its live values, deactivated subtracts them; a form-site deleted
-- while inactive gives its values back to the direct computation (which leaves out only the
-- submissions of existing inactive form-sites), so they are added back here too.
CREATE FUNCTION sdcs_value_totals_form_sites() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  signs text;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (SELECT 1 FROM after_rows n JOIN before_rows o ON o.id = n.id
                    WHERE o.active IS DISTINCT FROM n.active) THEN
      RETURN NULL;
    END IF;
    PERFORM sdcs_lock_value_totals_of(ARRAY(SELECT DISTINCT organization_id FROM after_rows));
    signs := 'SELECT n.id, n.organization_id, CASE WHEN n.active THEN 1 ELSE -1 END AS sign
                FROM after_rows n JOIN before_rows o ON o.id = n.id WHERE o.active IS DISTINCT FROM n.active';
  ELSE
    IF NOT EXISTS (SELECT 1 FROM before_rows WHERE NOT active) THEN RETURN NULL; END IF;
    PERFORM sdcs_lock_value_totals_of(ARRAY(SELECT DISTINCT organization_id FROM before_rows));
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

CREATE TRIGGER form_sites_totals_on_update
  AFTER UPDATE ON form_sites REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_totals_form_sites();
CREATE TRIGGER form_sites_totals_on_delete
  AFTER DELETE ON form_sites REFERENCING OLD TABLE AS before_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_totals_form_sites();

-- The totals of one organization recomputed from its values (what verify-aggregates compares).
CREATE FUNCTION sdcs_computed_value_totals(org uuid)
RETURNS TABLE (site_id uuid, element_id uuid, year integer, status text, period_unit integer,
               total numeric, value_count bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  WITH own AS (
    SELECT v.site_id, v.element_id, v.year, v.status, v.period_unit,
           sum(v.numeric_value::numeric) AS total, count(*) AS value_count
      FROM form_element_submissions v
     WHERE v.organization_id = org AND v.deleted_at IS NULL AND v.numeric_value IS NOT NULL
       AND v.form_submission_id <> ALL (ARRAY(
         SELECT sub.id FROM form_sites fs
           JOIN form_submissions sub ON sub.organization_id = fs.organization_id AND sub.form_site_id = fs.id
          WHERE fs.organization_id = org AND NOT fs.active))
     GROUP BY 1, 2, 3, 4, 5
  )
  SELECT a.ancestor_id, o.element_id, o.year, o.status, o.period_unit, sum(o.total), sum(o.value_count)::bigint
    FROM own o
    JOIN sdcs_site_ancestors(org, ARRAY(SELECT DISTINCT site_id FROM own)) a ON a.site_id = o.site_id
   GROUP BY 1, 2, 3, 4, 5
$$;

-- Replaces an organization's totals by the recomputed ones.
CREATE FUNCTION sdcs_rebuild_value_totals(org uuid) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM sdcs_lock_value_totals(org);
  DELETE FROM value_totals WHERE organization_id = org;
  INSERT INTO value_totals (organization_id, site_id, element_id, year, status, period_unit, total, value_count)
  SELECT org, c.site_id, c.element_id, c.year, c.status, c.period_unit, c.total, c.value_count
    FROM sdcs_computed_value_totals(org) c
   ORDER BY 2, 3, 4, 5, 6;
END $$;

-- A site moved: its subtree's totals (its own rows) leave the old ancestors and join the new ones.
-- Several sites moved by one statement (never done by the service) rebuild the organization.
CREATE FUNCTION sdcs_value_totals_sites_moved() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
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
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[moved.old_parent]) WHERE moved.old_parent IS NOT NULL
          UNION ALL
          SELECT ancestor_id, 1
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[moved.new_parent]) WHERE moved.new_parent IS NOT NULL) x
      ON true
   WHERE m.organization_id = moved.organization_id AND m.site_id = moved.id
   GROUP BY 1, 2, 3, 4, 5, 6
   ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (organization_id, site_id, element_id, year, status, period_unit) DO UPDATE
    SET total = t.total + excluded.total, value_count = t.value_count + excluded.value_count;
  RETURN NULL;
END $$;

CREATE TRIGGER sites_totals_on_update
  AFTER UPDATE ON sites REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_totals_sites_moved();

-- The totals of the values stored before this migration.
DO $$
DECLARE o record;
BEGIN
  FOR o IN SELECT id FROM organizations ORDER BY id LOOP
    PERFORM sdcs_rebuild_value_totals(o.id);
  END LOOP;
END $$;
