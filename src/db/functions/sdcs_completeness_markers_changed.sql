-- No-activity markers: the form-site of each marker added or removed.

CREATE OR REPLACE FUNCTION public.sdcs_completeness_markers_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  o record;
BEGIN
  FOR o IN EXECUTE sdcs_completeness_keys_sql(format(
    'SELECT fs.organization_id, fs.id AS form_site_id FROM (SELECT DISTINCT organization_id, form_id, site_id, year FROM %s) m
       JOIN form_sites fs ON fs.organization_id = m.organization_id AND fs.form_id = m.form_id
        AND fs.site_id = m.site_id AND fs.year = m.year',
    CASE WHEN TG_OP = 'INSERT' THEN 'after_rows' ELSE 'before_rows' END))
  LOOP
    PERFORM sdcs_refresh_completeness_touched(o.organization_id, o.ids);
  END LOOP;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER no_activity_markers_completeness_on_delete AFTER DELETE ON public.no_activity_markers REFERENCING OLD TABLE AS before_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_markers_changed();

CREATE OR REPLACE TRIGGER no_activity_markers_completeness_on_insert AFTER INSERT ON public.no_activity_markers REFERENCING NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_markers_changed();
