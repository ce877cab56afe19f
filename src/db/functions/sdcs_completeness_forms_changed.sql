-- Forms: new due days or period type recompute the form's form-sites (on time, periods).

CREATE OR REPLACE FUNCTION public.sdcs_completeness_forms_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  o record;
BEGIN
  FOR o IN EXECUTE sdcs_completeness_keys_sql(
    'SELECT fs.organization_id, fs.id AS form_site_id
       FROM after_rows n JOIN before_rows o ON o.id = n.id
       JOIN form_sites fs ON fs.organization_id = n.organization_id AND fs.form_id = n.id AND fs.active
      WHERE (o.due_days, o.period_type) IS DISTINCT FROM (n.due_days, n.period_type)')
  LOOP
    PERFORM sdcs_refresh_completeness_touched(o.organization_id, o.ids);
  END LOOP;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER forms_completeness_on_update AFTER UPDATE ON public.forms REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_forms_changed();
