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

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
