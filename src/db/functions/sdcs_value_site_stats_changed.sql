-- The value trigger: every (site, element, year) whose numeric values a statement changed.

CREATE OR REPLACE FUNCTION public.sdcs_value_site_stats_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  k record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(organization_id) AS o, array_agg(site_id) AS s, array_agg(element_id) AS e, array_agg(year) AS y
      INTO k
      FROM (SELECT DISTINCT organization_id, site_id, element_id, year FROM after_rows
             WHERE numeric_value IS NOT NULL) x;
  ELSIF TG_OP = 'UPDATE' THEN
    -- An update counts when something the rows depend on changed (not a timestamp, a comment).
    SELECT array_agg(organization_id) AS o, array_agg(site_id) AS s, array_agg(element_id) AS e, array_agg(year) AS y
      INTO k
      FROM (SELECT organization_id, site_id, element_id, year
              FROM (SELECT id, organization_id, site_id, element_id, year, status, numeric_value,
                           deleted_at IS NULL AS live, period_unit, form_submission_id FROM after_rows
                    EXCEPT
                    SELECT id, organization_id, site_id, element_id, year, status, numeric_value,
                           deleted_at IS NULL, period_unit, form_submission_id FROM before_rows) n
            UNION
            SELECT organization_id, site_id, element_id, year
              FROM (SELECT id, organization_id, site_id, element_id, year, status, numeric_value,
                           deleted_at IS NULL AS live, period_unit, form_submission_id FROM before_rows
                    EXCEPT
                    SELECT id, organization_id, site_id, element_id, year, status, numeric_value,
                           deleted_at IS NULL, period_unit, form_submission_id FROM after_rows) o) x;
  ELSE
    SELECT array_agg(organization_id) AS o, array_agg(site_id) AS s, array_agg(element_id) AS e, array_agg(year) AS y
      INTO k
      FROM (SELECT DISTINCT organization_id, site_id, element_id, year FROM before_rows
             WHERE numeric_value IS NOT NULL) x;
  END IF;
  PERFORM sdcs_refresh_kept_value_site_stats(k.o, k.s, k.e, k.y);
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER form_element_submissions_stats_on_delete AFTER DELETE ON public.form_element_submissions REFERENCING OLD TABLE AS before_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_changed();

CREATE OR REPLACE TRIGGER form_element_submissions_stats_on_insert AFTER INSERT ON public.form_element_submissions REFERENCING NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_changed();

CREATE OR REPLACE TRIGGER form_element_submissions_stats_on_update AFTER UPDATE ON public.form_element_submissions REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_changed();
