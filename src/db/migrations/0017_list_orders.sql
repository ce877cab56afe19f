-- GET /activities counts and pages an element's activities through their value rows, which are
-- few (a site, year and period each), instead of through the activities, which may be many: each
-- value row keeps how many activities it has. Statement-level triggers keep the count, whoever
-- inserts or deletes activities; an activity never moves to another value row.
ALTER TABLE form_element_submissions ADD COLUMN activity_count integer NOT NULL DEFAULT 0;

UPDATE form_element_submissions v
   SET activity_count = c.n
  FROM (SELECT organization_id, form_element_submission_id AS id, count(*)::int AS n
          FROM activities GROUP BY organization_id, form_element_submission_id) c
 WHERE v.organization_id = c.organization_id AND v.id = c.id;

CREATE FUNCTION sdcs_activities_added() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE form_element_submissions v
     SET activity_count = v.activity_count + c.n
    FROM (SELECT organization_id, form_element_submission_id AS id, count(*)::int AS n
            FROM added GROUP BY organization_id, form_element_submission_id) c
   WHERE v.organization_id = c.organization_id AND v.id = c.id;
  RETURN NULL;
END $$;

CREATE FUNCTION sdcs_activities_removed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE form_element_submissions v
     SET activity_count = v.activity_count - c.n
    FROM (SELECT organization_id, form_element_submission_id AS id, count(*)::int AS n
            FROM removed GROUP BY organization_id, form_element_submission_id) c
   WHERE v.organization_id = c.organization_id AND v.id = c.id;
  RETURN NULL;
END $$;

CREATE TRIGGER activities_counted_on_insert AFTER INSERT ON activities
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION sdcs_activities_added();
CREATE TRIGGER activities_counted_on_delete AFTER DELETE ON activities
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION sdcs_activities_removed();


-- GET /dataset-items lists an organization's items by dataset, key (byte order) and year: this
-- index hands them over in that order.
CREATE INDEX dataset_items_list_idx ON dataset_items (organization_id, dataset_id, key COLLATE "C", year);
