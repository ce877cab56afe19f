-- Values and their history are written thousands at a time (source imports, 2,500 rows per
-- statement). A foreign key checks and key-share locks its referenced row with one query per
-- written row: six keys made half the time of such a statement. The rows these keys point at
-- (users, units, submissions, form elements, values) are never deleted by the service, only
-- marked deleted, so nothing can remove them under a writer; what a key still guards is the
-- written row itself, and one set-based check per statement guards it as well: every
-- submission, element, user, unit and value a statement's rows name must exist, or the
-- statement fails with the foreign-key SQLSTATE (23503), as a key would make it fail.
DO $$
DECLARE c record;
BEGIN
  FOR c IN
    SELECT conname, conrelid::regclass AS tbl
      FROM pg_constraint
     WHERE contype = 'f'
       AND conrelid IN ('form_element_submissions'::regclass, 'form_value_history'::regclass)
       AND confrelid IN ('users'::regclass, 'units'::regclass, 'form_submissions'::regclass,
                         'form_elements'::regclass, 'form_element_submissions'::regclass)
  LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.tbl, c.conname);
  END LOOP;
END $$;

-- Each check reads the rows it names by their primary key (`id = any(…)`, an index scan: the only
-- index that starts with id), then takes the named (organization, id) pairs it did not find with
-- EXCEPT: no join for the planner to order. With statistics taken while the tables were small, a
-- join let it probe another index by organization alone and filter every row of the organization
-- for each key (seconds for the history of a 500-value submission at 45,000 stored values, and
-- growing with the data). Sequential scans are off for the same reason. The checks run as the
-- tables' owner, as foreign-key checks do (row-level security would only add its organization
-- condition), and they only read.
CREATE FUNCTION sdcs_check_value_rows() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp SET enable_seqscan = off AS $$
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
  IF missing IS NOT NULL THEN
    RAISE EXCEPTION 'form_element_submissions names % that does not exist', missing
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER form_element_submissions_checked_on_insert
  AFTER INSERT ON form_element_submissions REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_check_value_rows();
CREATE TRIGGER form_element_submissions_checked_on_update
  AFTER UPDATE ON form_element_submissions REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_check_value_rows();

CREATE FUNCTION sdcs_check_value_history_rows() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp SET enable_seqscan = off AS $$
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
END $$;

-- History rows are only ever inserted (the application role may not change or remove them).
CREATE TRIGGER form_value_history_checked_on_insert
  AFTER INSERT ON form_value_history REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_check_value_history_rows();
