-- Form sites are read by primary key (`id = any(…)`): no join for stale statistics to misplan.

CREATE OR REPLACE FUNCTION public.sdcs_form_sites_submitted()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
  -- A submission that already existed (ON CONFLICT DO UPDATE) is not in `added`.
  IF NOT EXISTS (SELECT 1 FROM added) THEN RETURN NULL; END IF;
  UPDATE form_sites
     SET submitted = true
   WHERE id = ANY (ARRAY(SELECT form_site_id FROM added)) AND NOT submitted;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER form_submissions_mark_on_insert AFTER INSERT ON public.form_submissions REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION sdcs_form_sites_submitted();
