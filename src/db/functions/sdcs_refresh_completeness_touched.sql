-- Recomputes the form-sites of one organization a statement touched. A statement touching at
-- least `sdcs.stats_bulk_keys` (5,000) form-sites and at least half of the organization's rebuilds
-- it set-wise instead (a bulk load), as the statistics of migration 0034 do.

CREATE OR REPLACE FUNCTION public.sdcs_refresh_completeness_touched(org uuid, ids uuid[])
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  touched constant integer := cardinality(ids);
  before integer;
  bulk constant integer := coalesce(nullif(current_setting('sdcs.stats_bulk_keys', true), '')::integer, 5000);
BEGIN
  IF touched >= bulk THEN
    SELECT count(*) INTO before FROM (
      SELECT 1 FROM completeness_cells c
       WHERE c.organization_id = org AND c.period_unit = 0
       LIMIT 2 * touched + 1) x;
    IF 2 * touched > before THEN
      PERFORM sdcs_rebuild_completeness(org);
      RETURN;
    END IF;
  END IF;
  PERFORM sdcs_refresh_completeness(org, ids);
END $function$;
