-- GET /form-submissions pages through the form sites in the list's order (latest year first,
-- then form, then site) and counts its total from per-(form, year) counts, instead of joining,
-- sorting and counting every submission of the organization to return one page.
--
-- A form site knows whether it has its submission (`submitted`, set by a statement-level trigger
-- on form_submissions, whoever inserts them), so that an index over the active, submitted form
-- sites serves the page in order.
ALTER TABLE form_sites ADD COLUMN submitted boolean NOT NULL DEFAULT false;

UPDATE form_sites fs
   SET submitted = true
  FROM form_submissions s
 WHERE s.organization_id = fs.organization_id AND s.form_site_id = fs.id;

-- The list's order, for the whole organization (or one year) and for one form.
CREATE INDEX form_sites_listed_idx ON form_sites (organization_id, year DESC, form_id, site_id)
  WHERE active AND submitted;
CREATE INDEX form_sites_listed_form_idx ON form_sites (organization_id, form_id, year DESC, site_id)
  WHERE active AND submitted;

-- How many active form sites with a submission each (form, year) has: the total of a list that
-- is not narrowed to some sites sums these (a row per form and year) instead of counting the
-- submissions. Kept by statement-level triggers on form_sites, whatever changes them (a form
-- site added, activated, deactivated, submitted, or deleted with its form). A row changes only
-- when a form site starts or stops counting (its first submission, or PUT /form-sites), not when
-- a submission is updated. Rows are changed in key order, so that two writers lock them in the
-- same order.
CREATE TABLE form_submission_counts (
  organization_id uuid NOT NULL,
  form_id uuid NOT NULL,
  year integer NOT NULL,
  submissions integer NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, form_id, year)
);
SELECT sdcs_tenant_table('form_submission_counts');

INSERT INTO form_submission_counts (organization_id, form_id, year, submissions)
SELECT organization_id, form_id, year, count(*)::int
  FROM form_sites WHERE active AND submitted
 GROUP BY organization_id, form_id, year;

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
