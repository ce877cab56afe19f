-- The completeness cells' value lookup, bounded whatever index the plan picks (0035).
--
-- sdcs_fresh_completeness_cells looks a form-site's values up by (submission, element). The plan
-- of the refresh is cached by PL/pgSQL and made while the tables looked small (a new organization),
-- and there both the unique (submission, element, period) index and the statistics' (site, element,
-- year) index look alike: a plan picked the latter with only its element column bound, reading
-- every value of the element in the organization for each expected element (measured on a fresh
-- database: 9,000 buffers and 7 of the 7.5 ms of a 50-value submission's refresh, growing with the
-- organization). The lookup now also binds the value's site and year, which each value carries from
-- its form-site (0016), so either index is probed by its full key. Otherwise the body of 0035.
--
-- The same plans read other tables whole for the organization and kept what they needed: its
-- forms and live elements (for the form-sites' forms), its cells (for the form-sites' old cells,
-- and for those to delete), its sites (for the sites still existing), and, in sdcs_site_ancestors
-- (which every aggregate's refresh calls), its sites again at each step up the tree. Each is now a
-- lookup per key (LATERAL ... OFFSET 0, as the other lookups; the deletion by the form-sites' ids).
--
-- sdcs_site_ancestors also loses SECURITY DEFINER and its search_path, as the cells' function did
-- in 0035 and the statistics' in 0036, so the planner inlines it into its callers (all SECURITY
-- DEFINER functions with their search_path) instead of planning it again at each of their calls.
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
$$;
CREATE OR REPLACE FUNCTION sdcs_fresh_completeness_cells(org uuid, ids uuid[])
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
           AND v.site_id = fs.site_id AND v.year = fs.year
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

CREATE OR REPLACE FUNCTION sdcs_refresh_completeness(org uuid, ids uuid[])
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET enable_seqscan = off AS $$
BEGIN
  PERFORM sdcs_lock_value_totals(org);
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

-- The totals' form-site trigger (0029) asked whether a statement changed any form-site's activation
-- with EXISTS over a join of the statement's old and new rows. Transition tables have neither
-- statistics nor indexes, and for an EXISTS the planner picks the join that finds a first row
-- soonest: a nested loop, which, when no activation changed (marking form-sites submitted, the
-- usual case), compares every new row with every old one. Marking 40,000 form-sites submitted in one
-- statement took 138 s, 100,000 about 15 minutes (measured; it is what a bulk load of form-sites
-- with their submissions does). The changed rows are now a set difference (EXCEPT: hashed or
-- sorted, linear), both in the check and in the rows whose values are added or subtracted.
CREATE OR REPLACE FUNCTION sdcs_value_totals_form_sites() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  signs text;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    -- The form-sites whose activation changed: set difference, not a join (see above).
    IF NOT EXISTS (SELECT id, active FROM after_rows EXCEPT SELECT id, active FROM before_rows) THEN
      RETURN NULL;
    END IF;
    PERFORM sdcs_lock_value_totals_of(ARRAY(SELECT DISTINCT organization_id FROM after_rows));
    signs := 'SELECT n.id, n.organization_id, CASE WHEN n.active THEN 1 ELSE -1 END AS sign
                FROM (SELECT id, organization_id, active FROM after_rows
                      EXCEPT SELECT id, organization_id, active FROM before_rows) n';
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
