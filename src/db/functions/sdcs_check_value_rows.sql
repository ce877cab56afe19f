-- The run is checked as the value's other references are (0019): once per statement, for the
-- distinct runs its rows name, instead of a foreign key's query per row.

CREATE OR REPLACE FUNCTION public.sdcs_check_value_rows()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
 SET enable_seqscan TO 'off'
AS $function$
DECLARE missing text;
BEGIN
  SELECT 'submission ' || m.id INTO missing FROM (
    SELECT organization_id, form_submission_id AS id FROM written
    EXCEPT
    SELECT organization_id, id FROM form_submissions
     WHERE id = ANY (ARRAY(SELECT form_submission_id FROM written))) m
   LIMIT 1;
  IF missing IS NULL THEN
    SELECT 'form element ' || m.id INTO missing FROM (
      SELECT organization_id, element_id AS id FROM written
      EXCEPT
      SELECT organization_id, id FROM form_elements WHERE id = ANY (ARRAY(SELECT element_id FROM written))) m
     LIMIT 1;
  END IF;
  IF missing IS NULL THEN
    SELECT 'user ' || m.id INTO missing FROM (
      SELECT user_id AS id FROM written
      EXCEPT
      SELECT id FROM users WHERE id = ANY (ARRAY(SELECT user_id FROM written))) m
     LIMIT 1;
  END IF;
  IF missing IS NULL THEN
    SELECT 'unit ' || m.id INTO missing FROM (
      SELECT selected_unit_id AS id FROM written WHERE selected_unit_id IS NOT NULL
      EXCEPT
      SELECT id FROM units WHERE id = ANY (ARRAY(SELECT selected_unit_id FROM written))) m
     LIMIT 1;
  END IF;
  IF missing IS NULL THEN
    SELECT 'source import run ' || m.id INTO missing FROM (
      SELECT organization_id, import_run_id AS id FROM written WHERE import_run_id IS NOT NULL
      EXCEPT
      SELECT organization_id, id FROM source_import_runs
       WHERE id = ANY (ARRAY(SELECT import_run_id FROM written WHERE import_run_id IS NOT NULL))) m
     LIMIT 1;
  END IF;
  IF missing IS NOT NULL THEN
    RAISE EXCEPTION 'form_element_submissions names % that does not exist', missing
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER form_element_submissions_checked_on_insert AFTER INSERT ON public.form_element_submissions REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION sdcs_check_value_rows();

CREATE OR REPLACE TRIGGER form_element_submissions_checked_on_update AFTER UPDATE ON public.form_element_submissions REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION sdcs_check_value_rows();
