CREATE OR REPLACE FUNCTION public.sdcs_form_sites_unsubmitted()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM removed) THEN RETURN NULL; END IF;
  UPDATE form_sites
     SET submitted = false
   WHERE id = ANY (ARRAY(SELECT form_site_id FROM removed)) AND submitted;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER form_submissions_mark_on_delete AFTER DELETE ON public.form_submissions REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION sdcs_form_sites_unsubmitted();
