-- Replaces an organization's totals by the recomputed ones.

CREATE OR REPLACE FUNCTION public.sdcs_rebuild_value_totals(org uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
  PERFORM sdcs_lock_value_totals(org);
  DELETE FROM value_totals WHERE organization_id = org;
  INSERT INTO value_totals (organization_id, site_id, element_id, year, status, period_unit, total, value_count)
  SELECT org, c.site_id, c.element_id, c.year, c.status, c.period_unit, c.total, c.value_count
    FROM sdcs_computed_value_totals(org) c
   ORDER BY 2, 3, 4, 5, 6;
END $function$;
