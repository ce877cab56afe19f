-- Forms and their elements, the (form, site, year) triples a form is active on, one
-- submission per triple, the submitted values and the append-only history of every value.

CREATE TABLE forms (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  period_type text NOT NULL CHECK (period_type IN ('YEARLY', 'QUARTERLY', 'MONTHLY')),
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Soft delete: the form disappears from the API, its elements and values stay.
  deleted_at timestamptz,
  UNIQUE (organization_id, id)
);
CREATE INDEX forms_org_idx ON forms (organization_id, name) WHERE deleted_at IS NULL;
CREATE INDEX forms_metadata_idx ON forms USING gin (metadata jsonb_path_ops);
SELECT sdcs_tenant_table('forms');

CREATE TABLE form_elements (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  form_id uuid NOT NULL,
  key text NOT NULL,
  label text NOT NULL,
  type text NOT NULL
    CHECK (type IN ('NUMBER', 'TEXT', 'BOOLEAN', 'SELECT', 'DATE', 'TIMESTAMP', 'FILE', 'ACTIVITY')),
  required boolean NOT NULL DEFAULT false,
  unit_id uuid REFERENCES units (id),
  options jsonb,
  -- Definitions may be common (another organization's), so this key cannot include organization_id.
  activity_definition_id uuid REFERENCES activity_definitions (id),
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  position integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Soft delete: indicators can still name the element and its values are kept.
  deleted_at timestamptz,
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, form_id) REFERENCES forms (organization_id, id) ON DELETE CASCADE,
  CHECK (unit_id IS NULL OR type = 'NUMBER'),
  CHECK ((activity_definition_id IS NOT NULL) = (type = 'ACTIVITY')),
  CHECK ((options IS NOT NULL) = (type = 'SELECT'))
);
CREATE UNIQUE INDEX form_elements_live_key ON form_elements (organization_id, form_id, key)
  WHERE deleted_at IS NULL;
CREATE INDEX form_elements_form_idx ON form_elements (organization_id, form_id, position);
CREATE INDEX form_elements_metadata_idx ON form_elements USING gin (metadata jsonb_path_ops);
CREATE INDEX form_elements_definition_idx ON form_elements (activity_definition_id)
  WHERE activity_definition_id IS NOT NULL;
SELECT sdcs_tenant_table('form_elements');

-- A form is active on a site for a year while `active`; deactivating hides the data, and
-- activating again brings back the same row and so the same data.
CREATE TABLE form_sites (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  form_id uuid NOT NULL,
  site_id uuid NOT NULL,
  year integer NOT NULL CHECK (year BETWEEN 1900 AND 2200),
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (organization_id, form_id, site_id, year),
  FOREIGN KEY (organization_id, form_id) REFERENCES forms (organization_id, id) ON DELETE CASCADE,
  -- Deleting a site removes its bare assignments; a submission below makes the delete fail (23503).
  FOREIGN KEY (organization_id, site_id) REFERENCES sites (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX form_sites_site_idx ON form_sites (organization_id, site_id, year);
CREATE INDEX form_sites_form_year_idx ON form_sites (organization_id, form_id, year) WHERE active;
SELECT sdcs_tenant_table('form_sites');

-- The one submission of a (form, site, year).
CREATE TABLE form_submissions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  form_site_id uuid NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  UNIQUE (organization_id, form_site_id),
  FOREIGN KEY (organization_id, form_site_id) REFERENCES form_sites (organization_id, id)
);
SELECT sdcs_tenant_table('form_submissions');

-- One value of one element for one period (or, for TIMESTAMP elements, one timestamp).
-- Deleting a value sets deleted_at, so its history stays reachable by its id; writing the
-- same (element, period) or (element, timestamp) again revives the row.
CREATE TABLE form_element_submissions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  form_submission_id uuid NOT NULL,
  element_id uuid NOT NULL,
  period_unit smallint NOT NULL CHECK (period_unit BETWEEN 1 AND 12),
  "timestamp" timestamptz,
  value jsonb NOT NULL,
  original_value jsonb,
  -- The value as a number when it is one: what indicators aggregate in SQL.
  numeric_value double precision,
  selected_unit_id uuid REFERENCES units (id),
  status text NOT NULL DEFAULT 'COMPLETED' CHECK (status IN ('COMPLETED', 'APPROVED', 'REJECTED')),
  user_id uuid NOT NULL REFERENCES users (id),
  recorded_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (organization_id, id),
  -- One row per (element, period), or per (element, timestamp) for TIMESTAMP elements (their
  -- period is the timestamp's month); also the index for reading a submission's values.
  UNIQUE NULLS NOT DISTINCT (organization_id, form_submission_id, element_id, period_unit, "timestamp"),
  FOREIGN KEY (organization_id, form_submission_id) REFERENCES form_submissions (organization_id, id),
  FOREIGN KEY (organization_id, element_id) REFERENCES form_elements (organization_id, id)
);
CREATE INDEX form_element_submissions_aggregate_idx
  ON form_element_submissions (organization_id, element_id, period_unit, status)
  INCLUDE (form_submission_id, numeric_value) WHERE deleted_at IS NULL;
SELECT sdcs_tenant_table('form_element_submissions');

-- Every create, update, delete and review of a value; rows are never changed or removed.
CREATE TABLE form_value_history (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id uuid NOT NULL,
  value_id uuid NOT NULL,
  action text NOT NULL CHECK (action IN ('CREATE', 'UPDATE', 'DELETE', 'REVIEW')),
  user_id uuid NOT NULL REFERENCES users (id),
  at timestamptz NOT NULL DEFAULT now(),
  before jsonb,
  after jsonb,
  comment text,
  FOREIGN KEY (organization_id, value_id) REFERENCES form_element_submissions (organization_id, id)
);
CREATE INDEX form_value_history_value_idx ON form_value_history (organization_id, value_id, seq);
SELECT sdcs_tenant_table('form_value_history');
REVOKE UPDATE, DELETE ON form_value_history FROM sdcs_app;
