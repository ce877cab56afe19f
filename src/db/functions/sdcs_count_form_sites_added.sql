-- Each function adds the changed rows' deltas, one statement, in key order.

CREATE OR REPLACE FUNCTION public.sdcs_count_form_sites_added()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
  INSERT INTO form_submission_counts AS c (organization_id, form_id, year, submissions)
  SELECT organization_id, form_id, year, count(*)::int FROM after_rows WHERE active AND submitted
   GROUP BY organization_id, form_id, year ORDER BY organization_id, form_id, year
  ON CONFLICT (organization_id, form_id, year) DO UPDATE SET submissions = c.submissions + excluded.submissions;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER form_sites_counted_on_insert AFTER INSERT ON public.form_sites REFERENCING NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_count_form_sites_added();
