-- A form-site activated, deactivated, or deleted while inactive: the keys of its values.

CREATE OR REPLACE FUNCTION public.sdcs_value_site_stats_form_sites()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  f record;
  k record;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    -- Set difference, not a join of the transition tables (decision 144).
    SELECT array_agg(organization_id) AS o, array_agg(id) AS ids INTO f
      FROM (SELECT id, organization_id, site_id, year, active FROM after_rows
            EXCEPT SELECT id, organization_id, site_id, year, active FROM before_rows) x;
  ELSE
    SELECT array_agg(organization_id) AS o, array_agg(id) AS ids INTO f FROM before_rows WHERE NOT active;
  END IF;
  IF f.o IS NULL THEN RETURN NULL; END IF;
  SELECT array_agg(organization_id) AS o, array_agg(site_id) AS s, array_agg(element_id) AS e, array_agg(year) AS y
    INTO k
    FROM (SELECT DISTINCT v.organization_id, v.site_id, v.element_id, v.year
            FROM unnest(f.o, f.ids) x(organization_id, id)
            JOIN form_submissions sub ON sub.organization_id = x.organization_id AND sub.form_site_id = x.id
            JOIN form_element_submissions v ON v.organization_id = sub.organization_id AND v.form_submission_id = sub.id
           WHERE v.deleted_at IS NULL AND v.numeric_value IS NOT NULL) x;
  PERFORM sdcs_refresh_kept_value_site_stats(k.o, k.s, k.e, k.y);
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER form_sites_stats_on_delete AFTER DELETE ON public.form_sites REFERENCING OLD TABLE AS before_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_form_sites();

CREATE OR REPLACE TRIGGER form_sites_stats_on_update AFTER UPDATE ON public.form_sites REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_form_sites();
