CREATE OR REPLACE FUNCTION public.sdcs_activities_removed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  UPDATE form_element_submissions v
     SET activity_count = v.activity_count - c.n
    FROM (SELECT organization_id, form_element_submission_id AS id, count(*)::int AS n
            FROM removed GROUP BY organization_id, form_element_submission_id) c
   WHERE v.organization_id = c.organization_id AND v.id = c.id;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER activities_counted_on_delete AFTER DELETE ON public.activities REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION sdcs_activities_removed();
