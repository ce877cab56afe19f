-- The completeness' form-sites trigger: an UPDATE that changed no activation, site, form or year
-- (the `submitted` flag of a first submission) returns at once; the changed rows are a set
-- difference, not a join.

CREATE OR REPLACE FUNCTION public.sdcs_completeness_form_sites_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  o record;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    FOR o IN SELECT x.organization_id, array_agg(x.id ORDER BY x.id) AS ids
               FROM (SELECT id, organization_id, active, site_id, form_id, year FROM after_rows
                     EXCEPT SELECT id, organization_id, active, site_id, form_id, year FROM before_rows) x
              GROUP BY 1 ORDER BY 1
    LOOP
      PERFORM sdcs_refresh_completeness_touched(o.organization_id, o.ids);
    END LOOP;
    RETURN NULL;
  END IF;
  FOR o IN EXECUTE sdcs_completeness_keys_sql(CASE WHEN TG_OP = 'INSERT'
      THEN 'SELECT organization_id, id AS form_site_id FROM after_rows WHERE active'
      ELSE 'SELECT organization_id, id AS form_site_id FROM before_rows WHERE active' END)
  LOOP
    PERFORM sdcs_refresh_completeness_touched(o.organization_id, o.ids);
  END LOOP;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER form_sites_completeness_on_delete AFTER DELETE ON public.form_sites REFERENCING OLD TABLE AS before_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_form_sites_changed();

CREATE OR REPLACE TRIGGER form_sites_completeness_on_insert AFTER INSERT ON public.form_sites REFERENCING NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_form_sites_changed();

CREATE OR REPLACE TRIGGER form_sites_completeness_on_update AFTER UPDATE ON public.form_sites REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_form_sites_changed();
