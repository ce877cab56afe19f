-- Exports (GET /exports/…): what an auditor asks of a value or an activity that the tables did
-- not keep until now, and the order the exports read in.

-- Which import run (and which of its rows) wrote a value. A value written later by a submission
-- keeps its row here; the export shows the import only while the value's recorded_at is still
-- the import's (both are the writing transaction's now()).
CREATE TABLE value_import_sources (
  organization_id uuid NOT NULL,
  value_id uuid NOT NULL,
  run_id uuid NOT NULL,
  -- [{sheet, rowIndex}] of the run's rows that made the value (several when rows were summed).
  rows jsonb NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, value_id),
  FOREIGN KEY (organization_id, value_id) REFERENCES form_element_submissions (organization_id, id)
);
SELECT sdcs_tenant_table('value_import_sources');

-- The SHA-256 of the calcCode an activity was last calculated with. Filled by a trigger from the
-- definition at write time: the calculation pipeline writes only results computed from the
-- definition's current code (it checks again in the write transaction). Activities written
-- before this migration keep null ("not recorded"): their code may have changed since.
ALTER TABLE activities ADD COLUMN calc_code_sha256 text;

-- The exports read a year's live values, and activities, in id order (keyset pages on PGlite).
CREATE INDEX form_element_submissions_export_idx
  ON form_element_submissions (organization_id, year, id) WHERE deleted_at IS NULL;
CREATE INDEX activities_export_idx ON activities (organization_id, year, id);

-- Where each activity is (value, element, form-site, site, year, period), kept after the activity
-- is deleted, so that the history export can place every change of an activity: a deleted
-- activity's row is gone and its history snapshots hold only input, value and metadata.
-- Filled per statement from the inserted rows; activities deleted before this migration cannot
-- be placed (their history is left out of year-filtered exports).
CREATE TABLE activity_places (
  organization_id uuid NOT NULL,
  activity_id uuid NOT NULL,
  value_id uuid NOT NULL,
  element_id uuid NOT NULL,
  form_site_id uuid NOT NULL,
  site_id uuid NOT NULL,
  year integer NOT NULL,
  period_unit smallint NOT NULL,
  PRIMARY KEY (organization_id, activity_id)
);
SELECT sdcs_tenant_table('activity_places');

INSERT INTO activity_places
SELECT organization_id, id, form_element_submission_id, element_id, form_site_id, site_id, year, period_unit
  FROM activities;

-- The history export reads a year's changes in order of their sequence.
CREATE INDEX activity_places_year_idx ON activity_places (organization_id, year);
CREATE INDEX form_value_history_export_idx ON form_value_history (organization_id, seq);
CREATE INDEX activity_history_export_idx ON activity_history (organization_id, seq);

-- The coefficients an activity's calculation looked up, in the order it asked for them:
-- [{key, datasetId, datasetItemId, year, value, unit}] (nulls where nothing was found). Null for
-- activities calculated before this migration ("not recorded"). Written with the result by the
-- same statement, so it always belongs to the stored value.
ALTER TABLE activities ADD COLUMN coefficients jsonb;

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
