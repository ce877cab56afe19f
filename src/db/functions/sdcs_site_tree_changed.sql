CREATE OR REPLACE FUNCTION public.sdcs_site_tree_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO site_tree_versions AS v (organization_id, version)
    SELECT o.organization_id, gen_random_uuid() FROM (SELECT DISTINCT organization_id FROM before_rows) o
     ORDER BY 1
    ON CONFLICT (organization_id) DO UPDATE SET version = excluded.version;
  ELSE
    INSERT INTO site_tree_versions AS v (organization_id, version)
    SELECT o.organization_id, gen_random_uuid() FROM (SELECT DISTINCT organization_id FROM after_rows) o
     ORDER BY 1
    ON CONFLICT (organization_id) DO UPDATE SET version = excluded.version;
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER sites_tree_version_on_delete AFTER DELETE ON public.sites REFERENCING OLD TABLE AS before_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_site_tree_changed();

CREATE OR REPLACE TRIGGER sites_tree_version_on_insert AFTER INSERT ON public.sites REFERENCING NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_site_tree_changed();

CREATE OR REPLACE TRIGGER sites_tree_version_on_update AFTER UPDATE ON public.sites REFERENCING NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_site_tree_changed();
