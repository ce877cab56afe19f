-- Replaces an organization's rows by the recomputed ones.

CREATE OR REPLACE FUNCTION public.sdcs_rebuild_value_site_stats(org uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
  PERFORM sdcs_lock_value_totals(org);
  DELETE FROM value_site_stats WHERE organization_id = org;
  DELETE FROM value_subtree_stats WHERE organization_id = org;
  INSERT INTO value_site_stats (organization_id, site_id, element_id, year, period_unit, value_count, total, mean, last_value)
  SELECT org, f.* FROM sdcs_fresh_value_site_stats(org, NULL, NULL, NULL) f ORDER BY 2, 3, 4, 5;
  INSERT INTO value_subtree_stats (organization_id, site_id, element_id, year, period_unit, site_count, value_count, total, mean_sum, last_sum)
  SELECT org, a.ancestor_id, s.element_id, s.year, s.period_unit, count(*), sum(s.value_count), sum(s.total),
         sum(s.mean), sum(s.last_value)
    FROM value_site_stats s
    JOIN sdcs_site_ancestors(org, ARRAY(SELECT DISTINCT site_id FROM value_site_stats WHERE organization_id = org)) a
      ON a.site_id = s.site_id
   WHERE s.organization_id = org
   GROUP BY 2, 3, 4, 5
   ORDER BY 2, 3, 4, 5;
END $function$;
