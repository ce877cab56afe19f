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

CREATE FUNCTION sdcs_check_value_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE missing text;
BEGIN
  SELECT 'submission ' || k.id INTO missing
    FROM (SELECT DISTINCT organization_id, form_submission_id AS id FROM written) k
   WHERE NOT EXISTS (SELECT 1 FROM form_submissions s WHERE s.organization_id = k.organization_id AND s.id = k.id)
   LIMIT 1;
  IF missing IS NULL THEN
    SELECT 'form element ' || k.id INTO missing
      FROM (SELECT DISTINCT organization_id, element_id AS id FROM written) k
     WHERE NOT EXISTS (SELECT 1 FROM form_elements e WHERE e.organization_id = k.organization_id AND e.id = k.id)
     LIMIT 1;
  END IF;
  IF missing IS NULL THEN
    SELECT 'user ' || k.id INTO missing
      FROM (SELECT DISTINCT user_id AS id FROM written) k
     WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = k.id)
     LIMIT 1;
  END IF;
  IF missing IS NULL THEN
    SELECT 'unit ' || k.id INTO missing
      FROM (SELECT DISTINCT selected_unit_id AS id FROM written WHERE selected_unit_id IS NOT NULL) k
     WHERE NOT EXISTS (SELECT 1 FROM units u WHERE u.id = k.id)
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

CREATE FUNCTION sdcs_check_value_history_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE missing text;
BEGIN
  SELECT 'value ' || k.id INTO missing
    FROM (SELECT DISTINCT organization_id, value_id AS id FROM written) k
   WHERE NOT EXISTS (
     SELECT 1 FROM form_element_submissions v WHERE v.organization_id = k.organization_id AND v.id = k.id)
   LIMIT 1;
  IF missing IS NULL THEN
    SELECT 'user ' || k.id INTO missing
      FROM (SELECT DISTINCT user_id AS id FROM written) k
     WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = k.id)
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
