-- Replaces an organization's cells and subtree rows by the recomputed ones, noting the periods that
-- became complete (were neither COMPLETE nor NO_ACTIVITY before) for `period.completed` (decision 223).

CREATE OR REPLACE FUNCTION public.sdcs_rebuild_completeness(org uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  done_ids uuid[];
  done_units integer[];
BEGIN
  PERFORM sdcs_lock_value_totals(org);
  SELECT coalesce(array_agg(form_site_id), '{}'), coalesce(array_agg(period_unit), '{}')
    INTO done_ids, done_units
    FROM completeness_cells
   WHERE organization_id = org AND status IN ('COMPLETE', 'NO_ACTIVITY');
  DELETE FROM completeness_cells WHERE organization_id = org;
  DELETE FROM completeness_subtree WHERE organization_id = org;
  INSERT INTO completeness_cells (organization_id, form_site_id, period_unit, site_id, form_id, year, status, on_time)
  SELECT org, f.* FROM sdcs_fresh_completeness_cells(org, NULL) f ORDER BY 2, 3;
  INSERT INTO period_completions (organization_id, form_site_id, period_unit, site_id, form_id, year, status, on_time)
  SELECT org, c.form_site_id, c.period_unit, c.site_id, c.form_id, c.year, c.status, c.on_time
    FROM completeness_cells c
   WHERE c.organization_id = org AND c.status IN ('COMPLETE', 'NO_ACTIVITY')
     AND NOT EXISTS (SELECT 1 FROM unnest(done_ids, done_units) d(id, unit)
                      WHERE d.id = c.form_site_id AND d.unit = c.period_unit);
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
