-- Locks the organizations of a transition table (see above), in id order.

CREATE OR REPLACE FUNCTION public.sdcs_lock_value_totals_of(orgs uuid[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE org uuid;
BEGIN
  FOREACH org IN ARRAY ARRAY(SELECT DISTINCT o FROM unnest(orgs) o ORDER BY 1) LOOP
    PERFORM sdcs_lock_value_totals(org);
  END LOOP;
END $function$;
