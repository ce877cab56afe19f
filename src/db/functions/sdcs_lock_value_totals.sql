-- Every stripe of one organization: what tree moves and rebuilds hold.

CREATE OR REPLACE FUNCTION public.sdcs_lock_value_totals(org uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM sdcs_lock_stripes(org, ARRAY[NULL]::smallint[]);
END $function$;
