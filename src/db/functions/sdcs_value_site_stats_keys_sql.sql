-- The query that groups the keys a source yields as (organization_id, site_id, element_id, year)
-- per organization, in id order (run by the triggers: only they see their transition tables).

CREATE OR REPLACE FUNCTION public.sdcs_value_site_stats_keys_sql(keys text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT format($q$
    SELECT organization_id, array_agg(site_id) AS s, array_agg(element_id) AS e, array_agg(year) AS y
      FROM (SELECT DISTINCT organization_id, site_id, element_id, year FROM (%s) k) k
     GROUP BY 1 ORDER BY 1 $q$, keys)
$function$;
