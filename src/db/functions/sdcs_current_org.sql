-- The organization of the current transaction, or NULL outside a tenant transaction.

CREATE OR REPLACE FUNCTION public.sdcs_current_org()
 RETURNS uuid
 LANGUAGE sql
 STABLE
AS $function$
  SELECT nullif(current_setting('app.organization_id', true), '')::uuid
$function$;
