-- The stripes of (organization, site, year) rows, organization by organization in id order.

CREATE OR REPLACE FUNCTION public.sdcs_lock_stripes_of(orgs uuid[], sites uuid[], years integer[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE o record;
BEGIN
  FOR o IN SELECT k.org, array_agg(DISTINCT sdcs_aggregate_stripe(k.site, k.year)) AS stripes
             FROM unnest(orgs, sites, years) k(org, site, year) GROUP BY 1 ORDER BY 1 LOOP
    PERFORM sdcs_lock_stripes(o.org, o.stripes);
  END LOOP;
END $function$;
