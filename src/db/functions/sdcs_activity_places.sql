CREATE OR REPLACE FUNCTION public.sdcs_activity_places()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO activity_places
  SELECT organization_id, id, form_element_submission_id, element_id, form_site_id, site_id, year, period_unit
    FROM new_rows
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE TRIGGER activities_places AFTER INSERT ON public.activities REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_activity_places();
