-- The import source of a value kept on the value's row (issue 30; decision 148).
--
-- Migration 0027 recorded which import run (and which of its rows) wrote a value in a table of its
-- own, `value_import_sources`, one row per value, shown by the export while the value's recorded_at
-- was still the one the record was written with. Writing that table was the largest cost of a
-- 10,000-row import outside the values themselves: 10,000 more rows, their primary key, and a
-- foreign-key check of each against the value (90-135 ms an import, a tenth of it).
--
-- The value's row now holds them: `import_run_id` and `import_rows` ([{sheet, rowIndex}], several when
-- rows were summed or listed). The values' write statement sets both, to the import's run and rows
-- or to null for any other write, so they always name the value's last write; a review or a number
-- recomputed keeps them, as it keeps recorded_at.
ALTER TABLE form_element_submissions ADD COLUMN import_run_id uuid, ADD COLUMN import_rows jsonb;

-- The run is checked as the value's other references are (0019): once per statement, for the
-- distinct runs its rows name, instead of a foreign key's query per row.
CREATE OR REPLACE FUNCTION sdcs_check_value_rows() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
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
END $$;

-- What the table showed: the records still current (written with the value's last recorded_at).
UPDATE form_element_submissions v
   SET import_run_id = s.run_id, import_rows = s.rows
  FROM value_import_sources s
 WHERE s.organization_id = v.organization_id AND s.value_id = v.id AND s.recorded_at = v.recorded_at;

DROP TABLE value_import_sources;
