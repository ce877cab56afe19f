-- ---------------------------------------------------------------------------------------------
-- value_totals

CREATE OR REPLACE FUNCTION public.sdcs_value_delta_sql(source text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
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
$function$;
