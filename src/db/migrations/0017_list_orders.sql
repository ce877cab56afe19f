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

-- GET /dataset-items lists an organization's items by dataset, key (byte order) and year: this
-- index hands them over in that order.
CREATE INDEX dataset_items_list_idx ON dataset_items (organization_id, dataset_id, key COLLATE "C", year);

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
