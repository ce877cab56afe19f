CREATE OR REPLACE FUNCTION public.sdcs_value_site_year()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  SELECT fs.site_id, fs.year INTO NEW.site_id, NEW.year
    FROM form_submissions sub
    JOIN form_sites fs ON fs.organization_id = sub.organization_id AND fs.id = sub.form_site_id
   WHERE sub.organization_id = NEW.organization_id AND sub.id = NEW.form_submission_id;
  RETURN NEW;
END
$function$;

-- Only when a writer left them out: the submissions pipeline sets both, and pays nothing here.
CREATE OR REPLACE TRIGGER form_element_submissions_site_year BEFORE INSERT ON public.form_element_submissions FOR EACH ROW WHEN (((new.site_id IS NULL) OR (new.year IS NULL))) EXECUTE FUNCTION sdcs_value_site_year();
