CREATE OR REPLACE FUNCTION public.sdcs_count_form_sites_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
  INSERT INTO form_submission_counts AS c (organization_id, form_id, year, submissions)
  SELECT organization_id, form_id, year, sum(d)::int
    FROM (SELECT organization_id, form_id, year, 1 AS d FROM after_rows WHERE active AND submitted
          UNION ALL
          SELECT organization_id, form_id, year, -1 FROM before_rows WHERE active AND submitted) x
   GROUP BY organization_id, form_id, year HAVING sum(d) <> 0 ORDER BY organization_id, form_id, year
  ON CONFLICT (organization_id, form_id, year) DO UPDATE SET submissions = c.submissions + excluded.submissions;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER form_sites_counted_on_update AFTER UPDATE ON public.form_sites REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_count_form_sites_changed();
