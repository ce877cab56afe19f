-- Completeness kept per cell and per subtree (issue 30).
--
-- The totals of GET /completeness (how many of the scope's cells are complete, partial, missing,
-- reported without activity, on time, overdue) were counted from every value of the form's year in
-- scope: a cost that grew with the data. What is kept instead:
--
--   completeness_cells    per active form-site: one row at period_unit 0 (the form-site counts in
--                         its site's totals), and one row per period that has reports, with the
--                         period's status (COMPLETE, PARTIAL or NO_ACTIVITY: a period without a
--                         row is MISSING) and whether it was complete on time;
--   completeness_subtree  per site AND each of its ancestors, form, year and period unit: the
--                         counts of those rows over the sites of the subtree (form_sites at
--                         period 0; complete, partial, no_activity and on_time at 1..12). As for
--                         value_totals, a site's row minus its children's rows is the site's own.
--
-- A cell is judged as the direct computation (completeness.repository.ts, cellsQuery) judges it:
-- the expected elements are the form's live required elements, or all its live elements when none
-- is required; a report is a value that is not deleted nor REJECTED (for an ACTIVITY element, a
-- non-empty list) or a no-activity marker of an ACTIVITY element; on time means complete (or
-- no activity) when the last of its reports was first made, no later than the due date. Overdue
-- depends on the time of the request, so it is derived when reading (missing and partial cells of
-- the periods already due).
--
-- Kept in the same transaction as every write, under the lock of value_totals: a statement that
-- changes values, markers or form-sites recomputes the cells of the form-sites it touched (one
-- form-site's year: a few hundred values through the indexes), and adds the differences to the
-- subtree rows of their sites and ancestors. A change of what a form expects (an element added,
-- removed or made required, its due days, its period type) recomputes the form's form-sites.
-- Moving a site moves its subtree rows; deleting sites takes their rows out of their ancestors.
CREATE TABLE completeness_cells (
  organization_id uuid NOT NULL,
  form_site_id uuid NOT NULL,
  period_unit integer NOT NULL,
  site_id uuid NOT NULL,
  form_id uuid NOT NULL,
  year integer NOT NULL,
  status text CHECK (status IN ('COMPLETE', 'PARTIAL', 'NO_ACTIVITY')),
  on_time boolean NOT NULL DEFAULT false,
  PRIMARY KEY (organization_id, form_site_id, period_unit),
  CHECK ((period_unit = 0) = (status IS NULL))
);
SELECT sdcs_tenant_table('completeness_cells');

CREATE TABLE completeness_subtree (
  organization_id uuid NOT NULL,
  site_id uuid NOT NULL,
  form_id uuid NOT NULL,
  year integer NOT NULL,
  period_unit integer NOT NULL,
  form_sites bigint NOT NULL DEFAULT 0,
  complete bigint NOT NULL DEFAULT 0,
  partial bigint NOT NULL DEFAULT 0,
  no_activity bigint NOT NULL DEFAULT 0,
  on_time bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, form_id, year, site_id, period_unit)
);
SELECT sdcs_tenant_table('completeness_subtree');
CREATE INDEX completeness_subtree_site_idx ON completeness_subtree (organization_id, site_id);

-- When a period's data is due: `due_days` days after the period's end (UTC), as dueAt() in
-- completeness.periods.ts; null without due days.
CREATE FUNCTION sdcs_period_due(year integer, period_type text, period_unit integer, due_days integer)
RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
  SELECT (make_timestamp(year, 1, 1, 0, 0, 0)
          + make_interval(months => period_unit * CASE period_type WHEN 'YEARLY' THEN 12 WHEN 'QUARTERLY' THEN 3 ELSE 1 END,
                          days => due_days)) AT TIME ZONE 'UTC'
$$;

-- The cells of one organization's active form-sites given (null: all of them), from the values.
-- Every read is an index lookup per form-site and expected element (LATERAL ... OFFSET 0, as in
-- 0033), whatever the planner thinks of the tables' sizes: a trigger runs before any ANALYZE saw a
-- bulk insert's rows, and there a plan that joins whole tables loops over them (measured: a
-- rebuild of 2,000 form-sites ran 9 minutes instead of 0.5 s). The whole organization (null) is
-- read the same way, one lookup per form-site.
-- Neither SECURITY DEFINER nor SET: so the planner inlines it into the statement that calls it, and
-- the trigger's plan (PL/pgSQL caches it) is made once per session instead of on every write (a
-- 500-value form-site's refresh took 9.3 ms re-planned, 2.6 ms inlined). Its callers are the
-- SECURITY DEFINER functions below (their search_path applies) and verify-aggregates as the owner.
CREATE FUNCTION sdcs_fresh_completeness_cells(org uuid, ids uuid[])
RETURNS TABLE (form_site_id uuid, period_unit integer, site_id uuid, form_id uuid, year integer, status text,
               on_time boolean)
LANGUAGE sql STABLE AS $$
  WITH given AS (
    SELECT fs.id, fs.site_id, fs.form_id, fs.year
      FROM form_sites fs
     WHERE ids IS NULL AND fs.organization_id = org AND fs.active
    UNION ALL
    SELECT fs.id, fs.site_id, fs.form_id, fs.year
      FROM (SELECT DISTINCT unnest(ids)) k(id)
      CROSS JOIN LATERAL (
        SELECT fs.* FROM form_sites fs WHERE fs.organization_id = org AND fs.id = k.id AND fs.active OFFSET 0) fs
     WHERE ids IS NOT NULL
  ),
  fs AS (
    SELECT g.*, sub.id AS submission_id, f.period_type, f.due_days,
           CASE f.period_type WHEN 'YEARLY' THEN 1 WHEN 'QUARTERLY' THEN 4 ELSE 12 END AS last_unit
      FROM given g
      JOIN forms f ON f.organization_id = org AND f.id = g.form_id
      LEFT JOIN form_submissions sub ON sub.organization_id = org AND sub.form_site_id = g.id
  ),
  live AS (
    SELECT e.id, e.form_id, e.type = 'ACTIVITY' AS activity, e.required
      FROM form_elements e
     WHERE e.organization_id = org AND e.deleted_at IS NULL AND e.form_id IN (SELECT fs.form_id FROM fs)
  ),
  expected AS (
    SELECT l.id, l.form_id, l.activity FROM live l
     WHERE l.required OR NOT EXISTS (SELECT 1 FROM live r WHERE r.form_id = l.form_id AND r.required)
  ),
  expected_count AS (SELECT e.form_id, count(*) AS n FROM expected e GROUP BY 1),
  -- Per form-site and expected element, the values of its submission that may count as reports
  -- (not deleted, not REJECTED), each with its form-site's columns: what follows never joins back
  -- to fs (whose size the planner cannot know inside a trigger). Both keys of the lookup come from
  -- outside it, so even a generic plan made while the table looked empty probes (submission,
  -- element) and does not read every value of the element.
  reported AS (
    SELECT fs.*, v.period_unit, v.element_id, v.created_at, v.value
      FROM fs
      JOIN expected e ON e.form_id = fs.form_id
      CROSS JOIN LATERAL (
        SELECT v.period_unit, v.element_id, v.created_at, v.value
          FROM form_element_submissions v
         WHERE v.organization_id = org AND v.form_submission_id = fs.submission_id AND v.element_id = e.id
           AND v.deleted_at IS NULL AND v.status <> 'REJECTED'
        OFFSET 0) v
  ),
  marked AS (
    SELECT fs.*, m.period_unit, m.element_id, m.created_at
      FROM fs
      JOIN expected e ON e.form_id = fs.form_id AND e.activity
      CROSS JOIN LATERAL (
        SELECT m.period_unit, m.element_id, m.created_at
          FROM no_activity_markers m
         WHERE m.organization_id = org AND m.element_id = e.id AND m.site_id = fs.site_id AND m.year = fs.year
           AND m.form_id = fs.form_id
        OFFSET 0) m
  ),
  reports AS (
    SELECT r.id, r.site_id, r.form_id, r.year, r.period_type, r.due_days, r.last_unit,
           r.period_unit::integer AS period_unit, min(r.created_at) AS first_at, false AS marker
      FROM reported r
      JOIN expected e ON e.id = r.element_id
     WHERE NOT e.activity OR r.value <> '[]'::jsonb
     GROUP BY r.id, r.site_id, r.form_id, r.year, r.period_type, r.due_days, r.last_unit, r.period_unit, r.element_id
    UNION ALL
    SELECT m.id, m.site_id, m.form_id, m.year, m.period_type, m.due_days, m.last_unit,
           m.period_unit::integer, m.created_at, true
      FROM marked m
      JOIN expected e ON e.id = m.element_id AND e.activity
  ),
  per_cell AS (
    SELECT r.id, r.site_id, r.form_id, r.year, r.period_type, r.due_days, r.period_unit, count(*) AS reported,
           max(r.first_at) AS completed_at, bool_and(r.marker) AS only_markers
      FROM reports r
     WHERE r.period_unit BETWEEN 1 AND r.last_unit
     GROUP BY 1, 2, 3, 4, 5, 6, 7
  ),
  judged AS (
    SELECT c.*, CASE WHEN c.reported < n.n THEN 'PARTIAL' WHEN c.only_markers THEN 'NO_ACTIVITY' ELSE 'COMPLETE' END AS status
      FROM per_cell c
      JOIN expected_count n ON n.form_id = c.form_id
  )
  SELECT fs.id, 0, fs.site_id, fs.form_id, fs.year, NULL::text, false FROM fs
  UNION ALL
  SELECT j.id, j.period_unit, j.site_id, j.form_id, j.year, j.status,
         j.status <> 'PARTIAL'
         AND (j.due_days IS NULL OR j.completed_at <= sdcs_period_due(j.year, j.period_type, j.period_unit, j.due_days))
    FROM judged j
$$;

-- What one cell row adds to the subtree rows: (form_sites, complete, partial, no_activity, on_time).
-- Recomputes the cells of the form-sites given (deleted or inactive ones lose theirs) and adds the
-- differences to the subtree rows of their sites and ancestors. Cells of a site that no longer
-- exists (deleted with its form-sites) leave no difference behind: the site's deletion takes its
-- subtree rows out of its ancestors (sdcs_completeness_sites_deleted).
CREATE FUNCTION sdcs_refresh_completeness(org uuid, ids uuid[])
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET enable_seqscan = off AS $$
BEGIN
  PERFORM sdcs_lock_value_totals(org);
  WITH fresh AS (SELECT * FROM sdcs_fresh_completeness_cells(org, ids)),
  old AS (
    SELECT c.form_site_id, c.period_unit, c.site_id, c.form_id, c.year, c.status, c.on_time
      FROM completeness_cells c
     WHERE c.organization_id = org AND c.form_site_id = ANY (ids)
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
  ),
  up AS (
    SELECT a.* FROM sdcs_site_ancestors(org, ARRAY(
      SELECT DISTINCT x.site_id FROM changed x
       WHERE EXISTS (SELECT 1 FROM sites s WHERE s.organization_id = org AND s.id = x.site_id))) a
  )
  INSERT INTO completeness_subtree AS t (organization_id, site_id, form_id, year, period_unit, form_sites, complete, partial, no_activity, on_time)
  SELECT org, up.ancestor_id, x.form_id, x.year, x.period_unit,
         sum(x.sign * (x.period_unit = 0)::integer), sum(x.sign * (x.status = 'COMPLETE' IS TRUE)::integer),
         sum(x.sign * (x.status = 'PARTIAL' IS TRUE)::integer), sum(x.sign * (x.status = 'NO_ACTIVITY' IS TRUE)::integer),
         sum(x.sign * x.on_time::integer)
    FROM changed x JOIN up ON up.site_id = x.site_id
   GROUP BY 1, 2, 3, 4, 5
   ORDER BY 1, 3, 4, 2, 5
  ON CONFLICT (organization_id, form_id, year, site_id, period_unit) DO UPDATE
    SET form_sites = t.form_sites + excluded.form_sites, complete = t.complete + excluded.complete,
        partial = t.partial + excluded.partial, no_activity = t.no_activity + excluded.no_activity,
        on_time = t.on_time + excluded.on_time;
END $$;

-- The subtree rows of one organization computed from its cells as they should be.
CREATE FUNCTION sdcs_computed_completeness_subtree(org uuid)
RETURNS TABLE (site_id uuid, form_id uuid, year integer, period_unit integer, form_sites bigint, complete bigint,
               partial bigint, no_activity bigint, on_time bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  WITH cells AS (SELECT * FROM sdcs_fresh_completeness_cells(org, NULL))
  SELECT a.ancestor_id, c.form_id, c.year, c.period_unit, count(*) FILTER (WHERE c.period_unit = 0),
         count(*) FILTER (WHERE c.status = 'COMPLETE'), count(*) FILTER (WHERE c.status = 'PARTIAL'),
         count(*) FILTER (WHERE c.status = 'NO_ACTIVITY'), count(*) FILTER (WHERE c.on_time)
    FROM cells c
    JOIN sdcs_site_ancestors(org, ARRAY(SELECT DISTINCT site_id FROM cells)) a ON a.site_id = c.site_id
   GROUP BY 1, 2, 3, 4
$$;

-- Replaces an organization's cells and subtree rows by the recomputed ones.
CREATE FUNCTION sdcs_rebuild_completeness(org uuid) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM sdcs_lock_value_totals(org);
  DELETE FROM completeness_cells WHERE organization_id = org;
  DELETE FROM completeness_subtree WHERE organization_id = org;
  INSERT INTO completeness_cells (organization_id, form_site_id, period_unit, site_id, form_id, year, status, on_time)
  SELECT org, f.* FROM sdcs_fresh_completeness_cells(org, NULL) f ORDER BY 2, 3;
  INSERT INTO completeness_subtree (organization_id, site_id, form_id, year, period_unit, form_sites, complete, partial, no_activity, on_time)
  SELECT org, a.ancestor_id, c.form_id, c.year, c.period_unit, count(*) FILTER (WHERE c.period_unit = 0),
         count(*) FILTER (WHERE c.status = 'COMPLETE'), count(*) FILTER (WHERE c.status = 'PARTIAL'),
         count(*) FILTER (WHERE c.status = 'NO_ACTIVITY'), count(*) FILTER (WHERE c.on_time)
    FROM completeness_cells c
    JOIN sdcs_site_ancestors(org, ARRAY(SELECT DISTINCT site_id FROM completeness_cells WHERE organization_id = org)) a
      ON a.site_id = c.site_id
   WHERE c.organization_id = org
   GROUP BY 2, 3, 4, 5
   ORDER BY 3, 4, 2, 5;
END $$;

-- The query that groups the form-sites a source yields as (organization_id, form_site_id) per
-- organization, in id order (run by the triggers: only they see their transition tables).
CREATE FUNCTION sdcs_completeness_keys_sql(source text) RETURNS text LANGUAGE sql IMMUTABLE AS $f$
  SELECT format($q$
    SELECT organization_id, array_agg(form_site_id ORDER BY form_site_id) AS ids
      FROM (SELECT DISTINCT organization_id, form_site_id FROM (%s) k WHERE form_site_id IS NOT NULL) k
     GROUP BY 1 ORDER BY 1 $q$, source)
$f$;

-- Recomputes the form-sites of one organization a statement touched. A statement touching at
-- least `sdcs.stats_bulk_keys` (5,000) form-sites and at least half of the organization's rebuilds
-- it set-wise instead (a bulk load), as the statistics of migration 0034 do.
CREATE FUNCTION sdcs_refresh_completeness_touched(org uuid, ids uuid[]) RETURNS void LANGUAGE plpgsql
SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  touched constant integer := cardinality(ids);
  before integer;
  bulk constant integer := coalesce(nullif(current_setting('sdcs.stats_bulk_keys', true), '')::integer, 5000);
BEGIN
  IF touched >= bulk THEN
    SELECT count(*) INTO before FROM (
      SELECT 1 FROM completeness_cells c
       WHERE c.organization_id = org AND c.period_unit = 0
       LIMIT 2 * touched + 1) x;
    IF 2 * touched > before THEN
      PERFORM sdcs_rebuild_completeness(org);
      RETURN;
    END IF;
  END IF;
  PERFORM sdcs_refresh_completeness(org, ids);
END $$;

-- Values: the form-sites of the submissions whose reports a statement changed.
CREATE FUNCTION sdcs_completeness_values_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  rows text;
  o record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    rows := 'SELECT organization_id, form_submission_id FROM after_rows';
  ELSIF TG_OP = 'UPDATE' THEN
    -- What a report depends on (not the number itself, a comment or the time it was recorded).
    rows := 'SELECT n.organization_id, n.form_submission_id FROM after_rows n JOIN before_rows o ON o.id = n.id
              WHERE (o.status = ''REJECTED'', o.deleted_at IS NULL, o.created_at, o.period_unit, o.element_id,
                     o.form_submission_id, o.value = ''[]''::jsonb)
                    IS DISTINCT FROM (n.status = ''REJECTED'', n.deleted_at IS NULL, n.created_at, n.period_unit,
                     n.element_id, n.form_submission_id, n.value = ''[]''::jsonb)
             UNION ALL
             SELECT o.organization_id, o.form_submission_id FROM after_rows n JOIN before_rows o ON o.id = n.id
              WHERE o.form_submission_id <> n.form_submission_id';
  ELSE
    rows := 'SELECT organization_id, form_submission_id FROM before_rows';
  END IF;
  FOR o IN EXECUTE sdcs_completeness_keys_sql(format(
    'SELECT sub.organization_id, sub.form_site_id FROM (SELECT DISTINCT * FROM (%s) r) r
       JOIN form_submissions sub ON sub.organization_id = r.organization_id AND sub.id = r.form_submission_id', rows))
  LOOP
    PERFORM sdcs_refresh_completeness_touched(o.organization_id, o.ids);
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER form_element_submissions_completeness_on_insert
  AFTER INSERT ON form_element_submissions REFERENCING NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_values_changed();
CREATE TRIGGER form_element_submissions_completeness_on_update
  AFTER UPDATE ON form_element_submissions REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_values_changed();
CREATE TRIGGER form_element_submissions_completeness_on_delete
  AFTER DELETE ON form_element_submissions REFERENCING OLD TABLE AS before_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_values_changed();

-- No-activity markers: the form-site of each marker added or removed.
CREATE FUNCTION sdcs_completeness_markers_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  o record;
BEGIN
  FOR o IN EXECUTE sdcs_completeness_keys_sql(format(
    'SELECT fs.organization_id, fs.id AS form_site_id FROM (SELECT DISTINCT organization_id, form_id, site_id, year FROM %s) m
       JOIN form_sites fs ON fs.organization_id = m.organization_id AND fs.form_id = m.form_id
        AND fs.site_id = m.site_id AND fs.year = m.year',
    CASE WHEN TG_OP = 'INSERT' THEN 'after_rows' ELSE 'before_rows' END))
  LOOP
    PERFORM sdcs_refresh_completeness_touched(o.organization_id, o.ids);
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER no_activity_markers_completeness_on_insert
  AFTER INSERT ON no_activity_markers REFERENCING NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_markers_changed();
CREATE TRIGGER no_activity_markers_completeness_on_delete
  AFTER DELETE ON no_activity_markers REFERENCING OLD TABLE AS before_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_markers_changed();

-- Form-sites: assigned, activated, deactivated, moved to another key, or deleted.
CREATE FUNCTION sdcs_completeness_form_sites_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  touched text;
  o record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    touched := 'SELECT organization_id, id AS form_site_id FROM after_rows WHERE active';
  ELSIF TG_OP = 'UPDATE' THEN
    touched := 'SELECT n.organization_id, n.id AS form_site_id FROM after_rows n JOIN before_rows o ON o.id = n.id
                 WHERE (o.active, o.site_id, o.form_id, o.year) IS DISTINCT FROM (n.active, n.site_id, n.form_id, n.year)';
  ELSE
    touched := 'SELECT organization_id, id AS form_site_id FROM before_rows WHERE active';
  END IF;
  FOR o IN EXECUTE sdcs_completeness_keys_sql(touched) LOOP
    PERFORM sdcs_refresh_completeness_touched(o.organization_id, o.ids);
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER form_sites_completeness_on_insert
  AFTER INSERT ON form_sites REFERENCING NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_form_sites_changed();
CREATE TRIGGER form_sites_completeness_on_update
  AFTER UPDATE ON form_sites REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_form_sites_changed();
CREATE TRIGGER form_sites_completeness_on_delete
  AFTER DELETE ON form_sites REFERENCING OLD TABLE AS before_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_form_sites_changed();

-- Elements: a change of what the form expects recomputes the form's form-sites. An element
-- matters when it is or was required, or when its form has no live required element (then every
-- element is expected); a change of its label, options or position does not.
CREATE FUNCTION sdcs_completeness_elements_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  changed text;
  o record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    changed := 'SELECT n.organization_id, n.form_id, n.required AS was FROM after_rows n';
  ELSIF TG_OP = 'UPDATE' THEN
    changed := 'SELECT n.organization_id, n.form_id, n.required OR o.required AS was
                  FROM after_rows n JOIN before_rows o ON o.id = n.id
                 WHERE (o.required, o.type, o.deleted_at IS NULL, o.form_id)
                       IS DISTINCT FROM (n.required, n.type, n.deleted_at IS NULL, n.form_id)
                UNION ALL
                SELECT o.organization_id, o.form_id, true FROM after_rows n JOIN before_rows o ON o.id = n.id
                 WHERE o.form_id <> n.form_id';
  ELSE
    changed := 'SELECT o.organization_id, o.form_id, o.required AS was FROM before_rows o';
  END IF;
  FOR o IN EXECUTE sdcs_completeness_keys_sql(format(
    'SELECT fs.organization_id, fs.id AS form_site_id
       FROM (SELECT DISTINCT c.organization_id, c.form_id FROM (%s) c
              WHERE c.was OR NOT EXISTS (
                SELECT 1 FROM form_elements r
                 WHERE r.organization_id = c.organization_id AND r.form_id = c.form_id
                   AND r.required AND r.deleted_at IS NULL)) f
       JOIN form_sites fs ON fs.organization_id = f.organization_id AND fs.form_id = f.form_id AND fs.active',
    changed))
  LOOP
    PERFORM sdcs_refresh_completeness_touched(o.organization_id, o.ids);
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER form_elements_completeness_on_insert
  AFTER INSERT ON form_elements REFERENCING NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_elements_changed();
CREATE TRIGGER form_elements_completeness_on_update
  AFTER UPDATE ON form_elements REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_elements_changed();
CREATE TRIGGER form_elements_completeness_on_delete
  AFTER DELETE ON form_elements REFERENCING OLD TABLE AS before_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_elements_changed();

-- Forms: new due days or period type recompute the form's form-sites (on time, periods).
CREATE FUNCTION sdcs_completeness_forms_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  o record;
BEGIN
  FOR o IN EXECUTE sdcs_completeness_keys_sql(
    'SELECT fs.organization_id, fs.id AS form_site_id
       FROM after_rows n JOIN before_rows o ON o.id = n.id
       JOIN form_sites fs ON fs.organization_id = n.organization_id AND fs.form_id = n.id AND fs.active
      WHERE (o.due_days, o.period_type) IS DISTINCT FROM (n.due_days, n.period_type)')
  LOOP
    PERFORM sdcs_refresh_completeness_touched(o.organization_id, o.ids);
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER forms_completeness_on_update
  AFTER UPDATE ON forms REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_forms_changed();

-- A site moved: its subtree rows leave the old ancestors and join the new ones (several sites
-- moved by one statement rebuild the organization), as for value_totals.
CREATE FUNCTION sdcs_completeness_sites_moved() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
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
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[moved.old_parent]) WHERE moved.old_parent IS NOT NULL
          UNION ALL
          SELECT ancestor_id, 1
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[moved.new_parent]) WHERE moved.new_parent IS NOT NULL) x
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

CREATE TRIGGER sites_completeness_on_update
  AFTER UPDATE ON sites REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_sites_moved();

-- Sites deleted (with their bare form-sites): the subtree rows of each deleted site whose parent
-- stays leave the parent and its ancestors, and the deleted sites' rows go.
CREATE FUNCTION sdcs_completeness_sites_deleted() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
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
             SELECT DISTINCT d.parent_id FROM before_rows d
              WHERE d.organization_id = o.organization_id AND d.parent_id IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM before_rows p WHERE p.id = d.parent_id))) a
        ON a.site_id = d.parent_id
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

CREATE TRIGGER sites_completeness_on_delete
  AFTER DELETE ON sites REFERENCING OLD TABLE AS before_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_sites_deleted();

-- The cells of the data stored before this migration.
DO $$
DECLARE o record;
BEGIN
  FOR o IN SELECT id FROM organizations ORDER BY id LOOP
    PERFORM sdcs_rebuild_completeness(o.id);
  END LOOP;
END $$;
