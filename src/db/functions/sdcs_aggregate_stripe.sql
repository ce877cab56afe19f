CREATE OR REPLACE FUNCTION public.sdcs_aggregate_stripe(site uuid, year integer)
 RETURNS smallint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT (hashtextextended(site::text, year) & 15)::smallint
$function$;
