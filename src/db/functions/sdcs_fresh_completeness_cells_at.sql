-- The cells of some periods of some form-sites (migration 0041), with a tighter probe of the values.

CREATE OR REPLACE FUNCTION public.sdcs_fresh_completeness_cells_at(org uuid, ids uuid[], periods integer[])
 RETURNS TABLE(form_site_id uuid, period_unit integer, site_id uuid, form_id uuid, year integer, status text, on_time boolean)
 LANGUAGE sql
 STABLE
AS $function$
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
      -- A probe per form-site: a join's kept plan read every submission of the organization (0044).
      LEFT JOIN LATERAL (
        SELECT sub.id FROM form_submissions sub WHERE sub.organization_id = org AND sub.form_site_id = g.id OFFSET 0) sub
        ON true
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
  -- to fs (whose size the planner cannot know inside a trigger). The lookup probes the values'
  -- unique key (submission, element, period) with the touched periods: the `deleted_at` test stays
  -- outside it (OFFSET 0), so that no partial index of live values, whose keys start with the
  -- element and year of every site, is a candidate for the kept plan (migration 0044: 9 buffers a
  -- probe through those, 3 through the key).
  reported AS (
    SELECT fs.*, v.period_unit, v.element_id, v.created_at, v.value, v.activity
      FROM fs
      JOIN expected e ON e.form_id = fs.form_id
      CROSS JOIN LATERAL (
        SELECT v.period_unit, v.element_id, v.created_at, v.value, v.deleted_at, v.status, e.activity
          FROM form_element_submissions v
         WHERE v.organization_id = org AND v.form_submission_id = fs.submission_id AND v.element_id = e.id
           AND v.period_unit = ANY (fs.units)
        OFFSET 0) v
     WHERE v.deleted_at IS NULL AND v.status <> 'REJECTED'
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
     WHERE NOT r.activity OR r.value <> '[]'::jsonb
     GROUP BY r.period_unit, r.element_id, r.id, r.site_id, r.form_id, r.year, r.period_type, r.due_days, r.last_unit
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
     GROUP BY r.period_unit, r.id, r.site_id, r.form_id, r.year, r.period_type, r.due_days
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
$function$;
