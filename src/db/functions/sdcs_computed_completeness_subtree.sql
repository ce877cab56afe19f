-- The subtree rows of one organization computed from its cells as they should be.

CREATE OR REPLACE FUNCTION public.sdcs_computed_completeness_subtree(org uuid)
 RETURNS TABLE(site_id uuid, form_id uuid, year integer, period_unit integer, form_sites bigint, complete bigint, partial bigint, no_activity bigint, on_time bigint)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
  WITH cells AS (SELECT * FROM sdcs_fresh_completeness_cells(org, NULL))
  SELECT a.ancestor_id, c.form_id, c.year, c.period_unit, count(*) FILTER (WHERE c.period_unit = 0),
         count(*) FILTER (WHERE c.status = 'COMPLETE'), count(*) FILTER (WHERE c.status = 'PARTIAL'),
         count(*) FILTER (WHERE c.status = 'NO_ACTIVITY'), count(*) FILTER (WHERE c.on_time)
    FROM cells c
    JOIN sdcs_site_ancestors(org, ARRAY(SELECT DISTINCT site_id FROM cells)) a ON a.site_id = c.site_id
   GROUP BY 1, 2, 3, 4
$function$;
