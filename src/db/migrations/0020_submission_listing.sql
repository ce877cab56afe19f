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

-- Form sites are read by primary key (`id = any(…)`): no join for stale statistics to misplan.
CREATE FUNCTION sdcs_form_sites_submitted() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
BEGIN
  -- A submission that already existed (ON CONFLICT DO UPDATE) is not in `added`.
  IF NOT EXISTS (SELECT 1 FROM added) THEN RETURN NULL; END IF;
  UPDATE form_sites
     SET submitted = true
   WHERE id = ANY (ARRAY(SELECT form_site_id FROM added)) AND NOT submitted;
  RETURN NULL;
END $$;

CREATE FUNCTION sdcs_form_sites_unsubmitted() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM removed) THEN RETURN NULL; END IF;
  UPDATE form_sites
     SET submitted = false
   WHERE id = ANY (ARRAY(SELECT form_site_id FROM removed)) AND submitted;
  RETURN NULL;
END $$;

CREATE TRIGGER form_submissions_mark_on_insert AFTER INSERT ON form_submissions
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION sdcs_form_sites_submitted();
CREATE TRIGGER form_submissions_mark_on_delete AFTER DELETE ON form_submissions
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION sdcs_form_sites_unsubmitted();

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

-- Each function adds the changed rows' deltas, one statement, in key order.
CREATE FUNCTION sdcs_count_form_sites_added() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
BEGIN
  INSERT INTO form_submission_counts AS c (organization_id, form_id, year, submissions)
  SELECT organization_id, form_id, year, count(*)::int FROM after_rows WHERE active AND submitted
   GROUP BY organization_id, form_id, year ORDER BY organization_id, form_id, year
  ON CONFLICT (organization_id, form_id, year) DO UPDATE SET submissions = c.submissions + excluded.submissions;
  RETURN NULL;
END $$;

CREATE FUNCTION sdcs_count_form_sites_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
BEGIN
  INSERT INTO form_submission_counts AS c (organization_id, form_id, year, submissions)
  SELECT organization_id, form_id, year, sum(d)::int
    FROM (SELECT organization_id, form_id, year, 1 AS d FROM after_rows WHERE active AND submitted
          UNION ALL
          SELECT organization_id, form_id, year, -1 FROM before_rows WHERE active AND submitted) x
   GROUP BY organization_id, form_id, year HAVING sum(d) <> 0 ORDER BY organization_id, form_id, year
  ON CONFLICT (organization_id, form_id, year) DO UPDATE SET submissions = c.submissions + excluded.submissions;
  RETURN NULL;
END $$;

CREATE FUNCTION sdcs_count_form_sites_removed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
BEGIN
  INSERT INTO form_submission_counts AS c (organization_id, form_id, year, submissions)
  SELECT organization_id, form_id, year, -count(*)::int FROM before_rows WHERE active AND submitted
   GROUP BY organization_id, form_id, year ORDER BY organization_id, form_id, year
  ON CONFLICT (organization_id, form_id, year) DO UPDATE SET submissions = c.submissions + excluded.submissions;
  RETURN NULL;
END $$;

CREATE TRIGGER form_sites_counted_on_insert AFTER INSERT ON form_sites
  REFERENCING NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_count_form_sites_added();
CREATE TRIGGER form_sites_counted_on_update AFTER UPDATE ON form_sites
  REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sdcs_count_form_sites_changed();
CREATE TRIGGER form_sites_counted_on_delete AFTER DELETE ON form_sites
  REFERENCING OLD TABLE AS before_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_count_form_sites_removed();
