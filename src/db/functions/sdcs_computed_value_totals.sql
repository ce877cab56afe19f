-- The totals of one organization recomputed from its values (what verify-aggregates compares).

CREATE OR REPLACE FUNCTION public.sdcs_computed_value_totals(org uuid)
 RETURNS TABLE(site_id uuid, element_id uuid, year integer, status text, period_unit integer, total numeric, value_count bigint)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
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
$function$;
