-- The organization's default statuses changed: its rows are kept for the new ones.

CREATE OR REPLACE FUNCTION public.sdcs_value_site_stats_statuses()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE o record;
BEGIN
  FOR o IN SELECT n.id FROM after_rows n JOIN before_rows b ON b.id = n.id
            WHERE n.default_statuses IS DISTINCT FROM b.default_statuses ORDER BY 1 LOOP
    PERFORM sdcs_rebuild_value_site_stats(o.id);
  END LOOP;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER organizations_stats_on_update AFTER UPDATE ON public.organizations REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_statuses();
