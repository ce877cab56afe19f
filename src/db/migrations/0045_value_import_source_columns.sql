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

-- What the table showed: the records still current (written with the value's last recorded_at).
UPDATE form_element_submissions v
   SET import_run_id = s.run_id, import_rows = s.rows
  FROM value_import_sources s
 WHERE s.organization_id = v.organization_id AND s.value_id = v.id AND s.recorded_at = v.recorded_at;

DROP TABLE value_import_sources;

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
