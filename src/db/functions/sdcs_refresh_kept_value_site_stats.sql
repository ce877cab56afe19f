-- The (site, element, year) keys a statement touched, kept ones only, refreshed per organization;
-- the stripes of all its (site, year) pairs are locked first (see above).

CREATE OR REPLACE FUNCTION public.sdcs_refresh_kept_value_site_stats(orgs uuid[], sites uuid[], elements uuid[], years integer[])
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  o record;
  touched integer;
  before integer;
  bulk constant integer := coalesce(nullif(current_setting('sdcs.stats_bulk_keys', true), '')::integer, 5000);
BEGIN
  IF cardinality(orgs) IS NULL THEN RETURN; END IF;
  PERFORM sdcs_lock_stripes_of(orgs, sites, years);
  FOR o IN SELECT k.organization_id, array_agg(k.site_id) AS s, array_agg(k.element_id) AS e, array_agg(k.year) AS y
             FROM unnest(orgs, sites, elements, years) k(organization_id, site_id, element_id, year)
            WHERE k.element_id = ANY (ARRAY(
                    SELECT e.id FROM form_elements e
                     WHERE e.id = ANY (ARRAY(SELECT DISTINCT unnest(elements))) AND e.aggregation <> 'SUM'))
            GROUP BY 1 ORDER BY 1
  LOOP
    -- A statement loading most of an organization's values rebuilds it set-wise (migration 0034).
    touched := cardinality(o.s);
    IF touched >= bulk THEN
      SELECT count(*) INTO before FROM (
        SELECT 1 FROM value_site_stats s
         WHERE s.organization_id = o.organization_id AND s.period_unit = 0
         LIMIT 2 * touched + 1) x;
    END IF;
    IF touched >= bulk AND 2 * touched > before THEN
      PERFORM sdcs_rebuild_value_site_stats(o.organization_id);
    ELSE
      PERFORM sdcs_refresh_value_site_stats(o.organization_id, o.s, o.e, o.y);
    END IF;
  END LOOP;
END $function$;
