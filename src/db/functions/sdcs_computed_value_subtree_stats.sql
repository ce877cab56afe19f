-- The subtree rows of one organization computed from its per-site rows as they should be.

CREATE OR REPLACE FUNCTION public.sdcs_computed_value_subtree_stats(org uuid)
 RETURNS TABLE(site_id uuid, element_id uuid, year integer, period_unit integer, site_count bigint, value_count bigint, total numeric, mean_sum numeric, last_sum numeric)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
  WITH own AS (SELECT * FROM sdcs_fresh_value_site_stats(org, NULL, NULL, NULL))
  SELECT a.ancestor_id, o.element_id, o.year, o.period_unit, count(*), sum(o.value_count)::bigint,
         sum(o.total), sum(o.mean), sum(o.last_value)
    FROM own o
    JOIN sdcs_site_ancestors(org, ARRAY(SELECT DISTINCT site_id FROM own)) a ON a.site_id = o.site_id
   GROUP BY 1, 2, 3, 4
$function$;
