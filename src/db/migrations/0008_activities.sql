-- Activities: the calculated records behind an ACTIVITY element's value. The value row of
-- (submission, element, period) keeps the list of inputs as entered (and their sum as its
-- numeric value); each input becomes one activity here, at its position in that list.

CREATE TABLE activities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  form_element_submission_id uuid NOT NULL,
  element_id uuid NOT NULL,
  -- The definition the activity was calculated with; a common definition belongs to another
  -- organization, so this key cannot include organization_id. It keeps a definition in use from
  -- being deleted.
  activity_definition_id uuid NOT NULL REFERENCES activity_definitions (id),
  form_site_id uuid NOT NULL,
  site_id uuid NOT NULL,
  year integer NOT NULL CHECK (year BETWEEN 1900 AND 2200),
  period_unit smallint NOT NULL CHECK (period_unit BETWEEN 1 AND 12),
  position integer NOT NULL CHECK (position >= 0),
  input jsonb NOT NULL,
  value double precision NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  user_id uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  -- One activity per position of a value's list; also the index for reading a value's activities.
  UNIQUE (organization_id, form_element_submission_id, position),
  FOREIGN KEY (organization_id, form_element_submission_id)
    REFERENCES form_element_submissions (organization_id, id),
  FOREIGN KEY (organization_id, element_id) REFERENCES form_elements (organization_id, id),
  FOREIGN KEY (organization_id, form_site_id) REFERENCES form_sites (organization_id, id),
  FOREIGN KEY (organization_id, site_id) REFERENCES sites (organization_id, id)
);
-- GET /activities: one element, filtered by site, year and period, in listing order.
CREATE INDEX activities_list_idx
  ON activities (organization_id, element_id, site_id, year, period_unit, position);
-- Recalculation walks one definition's activities by (year, id); also serves the foreign key
-- check when a definition is deleted.
CREATE INDEX activities_definition_idx ON activities (activity_definition_id, organization_id, year, id);
SELECT sdcs_tenant_table('activities');

-- Every create, change, recalculation and removal of an activity; rows are never changed or
-- removed, and outlive the activity (no foreign key to it).
CREATE TABLE activity_history (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  activity_id uuid NOT NULL,
  action text NOT NULL CHECK (action IN ('CREATE', 'UPDATE', 'RECALCULATE', 'DELETE')),
  user_id uuid NOT NULL REFERENCES users (id),
  at timestamptz NOT NULL DEFAULT now(),
  before jsonb,
  after jsonb
);
CREATE INDEX activity_history_activity_idx ON activity_history (organization_id, activity_id, seq);
SELECT sdcs_tenant_table('activity_history');
REVOKE UPDATE, DELETE ON activity_history FROM sdcs_app;

-- "Nothing to report" for an ACTIVITY element on a site and period: distinct from missing data.
-- A marker belongs to an activation of the form (form, site, year), so like a submission it
-- keeps that site from being deleted.
CREATE TABLE no_activity_markers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  form_id uuid NOT NULL,
  element_id uuid NOT NULL,
  site_id uuid NOT NULL,
  year integer NOT NULL CHECK (year BETWEEN 1900 AND 2200),
  period_unit smallint NOT NULL CHECK (period_unit BETWEEN 1 AND 12),
  created_by uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  -- One marker per slot; also the index for listing an element's markers.
  UNIQUE (organization_id, element_id, site_id, year, period_unit),
  FOREIGN KEY (organization_id, form_id, site_id, year)
    REFERENCES form_sites (organization_id, form_id, site_id, year),
  FOREIGN KEY (organization_id, element_id) REFERENCES form_elements (organization_id, id)
);
SELECT sdcs_tenant_table('no_activity_markers');
