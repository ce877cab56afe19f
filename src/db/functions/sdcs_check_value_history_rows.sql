CREATE OR REPLACE FUNCTION public.sdcs_check_value_history_rows()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
 SET enable_seqscan TO 'off'
AS $function$
DECLARE missing text;
BEGIN
  SELECT 'value ' || m.id INTO missing FROM (
    SELECT organization_id, value_id AS id FROM written
    EXCEPT
    SELECT organization_id, id FROM form_element_submissions
     WHERE id = ANY (ARRAY(SELECT value_id FROM written))) m
   LIMIT 1;
  IF missing IS NULL THEN
    SELECT 'user ' || m.id INTO missing FROM (
      SELECT user_id AS id FROM written
      EXCEPT
      SELECT id FROM users WHERE id = ANY (ARRAY(SELECT user_id FROM written))) m
     LIMIT 1;
  END IF;
  IF missing IS NOT NULL THEN
    RAISE EXCEPTION 'form_value_history names % that does not exist', missing
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $function$;

-- History rows are only ever inserted (the application role may not change or remove them).
CREATE OR REPLACE TRIGGER form_value_history_checked_on_insert AFTER INSERT ON public.form_value_history REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION sdcs_check_value_history_rows();
