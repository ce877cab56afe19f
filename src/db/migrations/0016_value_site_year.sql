-- Indicators aggregate values over sites and years without joining submissions and form-sites:
-- each value carries the site and year of its submission's form-site (which never change).
-- Writers may set both; a value inserted without them gets them from its submission.

ALTER TABLE form_element_submissions ADD COLUMN site_id uuid, ADD COLUMN year integer;

UPDATE form_element_submissions v
   SET site_id = fs.site_id, year = fs.year
  FROM form_submissions sub
  JOIN form_sites fs ON fs.organization_id = sub.organization_id AND fs.id = sub.form_site_id
 WHERE sub.organization_id = v.organization_id AND sub.id = v.form_submission_id;

ALTER TABLE form_element_submissions
  ALTER COLUMN site_id SET NOT NULL,
  ALTER COLUMN year SET NOT NULL;

-- The indicators' aggregate: exactly the requested elements' live values of the years and
-- statuses asked for, read from the index alone (site, value, and the submission to leave out
-- the values of deactivated form-sites). Replaces the index keyed by period without year.
DROP INDEX form_element_submissions_aggregate_idx;
CREATE INDEX form_element_submissions_aggregate_idx
  ON form_element_submissions (organization_id, element_id, year, status, period_unit)
  INCLUDE (site_id, numeric_value, form_submission_id) WHERE deleted_at IS NULL;

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
