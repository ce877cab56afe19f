-- A value written recomputes the completeness cells of its periods only (0035 recomputed its
-- form-site's whole year).
--
-- A cell's status and timeliness depend on the reports of its own period and nothing else, and a
-- form-site's presence (its period-0 row) does not depend on values at all. So a statement that
-- changes values now recomputes the (form-site, period) cells it touched: a 50-value submission of one
-- month reads its 50 values instead of the form-site's year (up to 600), and the form-site's other
-- cells are neither read nor compared. Markers, form-sites, elements and forms still recompute whole
-- form-sites (0035). Same judgement as sdcs_fresh_completeness_cells, restricted to the periods
-- given: the value and marker lookups add the period (a key column of the values' unique index).
--
-- The refresh keeps one generic plan (plan_cache_mode): its estimates for a generic plan looked worse
-- than for a custom one, so PostgreSQL planned the whole inlined statement again on every write (2.8
-- ms a call; 1.2 ms with the generic plan). Every read in it is a lookup by key, which is what a
-- generic plan does well.

-- The cells of the (form-site, period) pairs given (ids and periods side by side), from the values;
-- no period-0 rows.
CREATE FUNCTION sdcs_fresh_completeness_cells_at(org uuid, ids uuid[], periods integer[])
RETURNS TABLE (form_site_id uuid, period_unit integer, site_id uuid, form_id uuid, year integer, status text,
               on_time boolean)
LANGUAGE sql STABLE AS $$
  WITH given AS (
    SELECT fs.id, fs.site_id, fs.form_id, fs.year, k.units
      FROM (SELECT k.id, array_agg(DISTINCT k.unit) AS units FROM unnest(ids, periods) k(id, unit) GROUP BY k.id) k
      CROSS JOIN LATERAL (
        SELECT fs.* FROM form_sites fs WHERE fs.organization_id = org AND fs.id = k.id AND fs.active OFFSET 0) fs
  ),
  fs AS (
    SELECT g.*, sub.id AS submission_id, f.period_type, f.due_days,
           CASE f.period_type WHEN 'YEARLY' THEN 1 WHEN 'QUARTERLY' THEN 4 ELSE 12 END AS last_unit
      FROM given g
      CROSS JOIN LATERAL (SELECT f.* FROM forms f WHERE f.organization_id = org AND f.id = g.form_id OFFSET 0) f
      LEFT JOIN form_submissions sub ON sub.organization_id = org AND sub.form_site_id = g.id
  ),
  live AS (
    SELECT e.id, e.form_id, e.type = 'ACTIVITY' AS activity, e.required
      FROM (SELECT DISTINCT fs.form_id FROM fs) k
      CROSS JOIN LATERAL (
        SELECT e.* FROM form_elements e
         WHERE e.organization_id = org AND e.form_id = k.form_id AND e.deleted_at IS NULL OFFSET 0) e
  ),
  expected AS (
    SELECT l.id, l.form_id, l.activity FROM live l
     WHERE l.required OR NOT EXISTS (SELECT 1 FROM live r WHERE r.form_id = l.form_id AND r.required)
  ),
  expected_count AS (SELECT e.form_id, count(*) AS n FROM expected e GROUP BY 1),
  -- Per form-site and expected element, the values of its submission that may count as reports
  -- (not deleted, not REJECTED), each with its form-site's columns: what follows never joins back
  -- to fs (whose size the planner cannot know inside a trigger). Both keys of the lookup come from
  -- outside it. The site and year (each value carries its form-site's) complete the key of the
  -- statistics' index as well, so whichever index a plan picks, it probes one form-site's element.
  reported AS (
    SELECT fs.*, v.period_unit, v.element_id, v.created_at, v.value
      FROM fs
      JOIN expected e ON e.form_id = fs.form_id
      CROSS JOIN LATERAL (
        SELECT v.period_unit, v.element_id, v.created_at, v.value
          FROM form_element_submissions v
         WHERE v.organization_id = org AND v.form_submission_id = fs.submission_id AND v.element_id = e.id
           AND v.site_id = fs.site_id AND v.year = fs.year AND v.period_unit = ANY (fs.units)
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
           AND m.form_id = fs.form_id AND m.period_unit = ANY (fs.units)
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
  SELECT j.id, j.period_unit, j.site_id, j.form_id, j.year, j.status,
         j.status <> 'PARTIAL'
         AND (j.due_days IS NULL OR j.completed_at <= sdcs_period_due(j.year, j.period_type, j.period_unit, j.due_days))
    FROM judged j
$$;

CREATE FUNCTION sdcs_refresh_completeness_at(org uuid, ids uuid[], periods integer[])
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  PERFORM sdcs_lock_value_totals(org);
  WITH fresh AS (SELECT * FROM sdcs_fresh_completeness_cells_at(org, ids, periods)),
  old AS (
    SELECT c.form_site_id, c.period_unit, c.site_id, c.form_id, c.year, c.status, c.on_time
      FROM (SELECT DISTINCT * FROM unnest(ids, periods)) k(id, unit)
      CROSS JOIN LATERAL (
        SELECT c.* FROM completeness_cells c
         WHERE c.organization_id = org AND c.form_site_id = k.id AND c.period_unit = k.unit OFFSET 0) c
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

-- Recomputes the cells of one organization's (form-site, period) pairs. A statement touching at
-- least `sdcs.stats_bulk_keys` (5,000) form-sites and at least half of the organization's rebuilds
-- it set-wise instead, as sdcs_refresh_completeness_touched does.
CREATE FUNCTION sdcs_refresh_completeness_touched_at(org uuid, ids uuid[], periods integer[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  touched constant integer := cardinality(ARRAY(SELECT DISTINCT unnest(ids)));
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
  PERFORM sdcs_refresh_completeness_at(org, ids, periods);
END $$;

-- Values: the (form-site, period) of every report a statement may have changed (for an update,
-- before and after).
CREATE OR REPLACE FUNCTION sdcs_completeness_values_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  changed constant text := 'FROM after_rows n JOIN before_rows o ON o.id = n.id
              WHERE (o.status = ''REJECTED'', o.deleted_at IS NULL, o.created_at, o.period_unit, o.element_id,
                     o.form_submission_id, o.value = ''[]''::jsonb)
                    IS DISTINCT FROM (n.status = ''REJECTED'', n.deleted_at IS NULL, n.created_at, n.period_unit,
                     n.element_id, n.form_submission_id, n.value = ''[]''::jsonb)';
  rows text;
  o record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    rows := 'SELECT organization_id, form_submission_id, period_unit FROM after_rows';
  ELSIF TG_OP = 'UPDATE' THEN
    -- What a report depends on (not the number itself, a comment or the time it was recorded).
    rows := format('SELECT n.organization_id, n.form_submission_id, n.period_unit %s
                    UNION ALL SELECT o.organization_id, o.form_submission_id, o.period_unit %s', changed, changed);
  ELSE
    rows := 'SELECT organization_id, form_submission_id, period_unit FROM before_rows';
  END IF;
  FOR o IN EXECUTE format(
    'SELECT organization_id, array_agg(form_site_id ORDER BY form_site_id, period_unit) AS ids,
            array_agg(period_unit ORDER BY form_site_id, period_unit) AS periods
       FROM (SELECT DISTINCT sub.organization_id, sub.form_site_id, r.period_unit::integer AS period_unit
               FROM (SELECT DISTINCT * FROM (%s) r) r
               JOIN form_submissions sub ON sub.organization_id = r.organization_id AND sub.id = r.form_submission_id) k
      GROUP BY 1 ORDER BY 1', rows)
  LOOP
    PERFORM sdcs_refresh_completeness_touched_at(o.organization_id, o.ids, o.periods);
  END LOOP;
  RETURN NULL;
END $$;
