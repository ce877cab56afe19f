-- Elements: a change of what the form expects recomputes the form's form-sites. An element
-- matters when it is or was required, or when its form has no live required element (then every
-- element is expected); a change of its label, options or position does not.

CREATE OR REPLACE FUNCTION public.sdcs_completeness_elements_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  changed text;
  o record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    changed := 'SELECT n.organization_id, n.form_id, n.required AS was FROM after_rows n';
  ELSIF TG_OP = 'UPDATE' THEN
    changed := 'SELECT n.organization_id, n.form_id, n.required OR o.required AS was
                  FROM after_rows n JOIN before_rows o ON o.id = n.id
                 WHERE (o.required, o.type, o.deleted_at IS NULL, o.form_id)
                       IS DISTINCT FROM (n.required, n.type, n.deleted_at IS NULL, n.form_id)
                UNION ALL
                SELECT o.organization_id, o.form_id, true FROM after_rows n JOIN before_rows o ON o.id = n.id
                 WHERE o.form_id <> n.form_id';
  ELSE
    changed := 'SELECT o.organization_id, o.form_id, o.required AS was FROM before_rows o';
  END IF;
  FOR o IN EXECUTE sdcs_completeness_keys_sql(format(
    'SELECT fs.organization_id, fs.id AS form_site_id
       FROM (SELECT DISTINCT c.organization_id, c.form_id FROM (%s) c
              WHERE c.was OR NOT EXISTS (
                SELECT 1 FROM form_elements r
                 WHERE r.organization_id = c.organization_id AND r.form_id = c.form_id
                   AND r.required AND r.deleted_at IS NULL)) f
       JOIN form_sites fs ON fs.organization_id = f.organization_id AND fs.form_id = f.form_id AND fs.active',
    changed))
  LOOP
    PERFORM sdcs_refresh_completeness_touched(o.organization_id, o.ids);
  END LOOP;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER form_elements_completeness_on_delete AFTER DELETE ON public.form_elements REFERENCING OLD TABLE AS before_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_elements_changed();

CREATE OR REPLACE TRIGGER form_elements_completeness_on_insert AFTER INSERT ON public.form_elements REFERENCING NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_elements_changed();

CREATE OR REPLACE TRIGGER form_elements_completeness_on_update AFTER UPDATE ON public.form_elements REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_elements_changed();
