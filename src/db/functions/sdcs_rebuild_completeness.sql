-- Replaces an organization's cells and subtree rows by the recomputed ones.

CREATE OR REPLACE FUNCTION public.sdcs_rebuild_completeness(org uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
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
END $function$;
