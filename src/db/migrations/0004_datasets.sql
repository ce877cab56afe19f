-- Coefficient datasets: datasets, their items (one coefficient per key and year) and the
-- append-only change history of items.
--
-- A dataset belongs to one organization. A common dataset (is_common) is readable by every
-- organization; only its own organization (through a platform admin) may change it.

CREATE TABLE datasets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  is_common boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id)
);
CREATE INDEX datasets_org_idx ON datasets (organization_id, name);
CREATE INDEX datasets_common_idx ON datasets (id) WHERE is_common;

ALTER TABLE datasets ENABLE ROW LEVEL SECURITY;
CREATE POLICY datasets_read ON datasets FOR SELECT
  USING (organization_id = (SELECT sdcs_current_org()) OR is_common);
CREATE POLICY datasets_insert ON datasets FOR INSERT
  WITH CHECK (organization_id = (SELECT sdcs_current_org()));
CREATE POLICY datasets_update ON datasets FOR UPDATE
  USING (organization_id = (SELECT sdcs_current_org()))
  WITH CHECK (organization_id = (SELECT sdcs_current_org()));
CREATE POLICY datasets_delete ON datasets FOR DELETE
  USING (organization_id = (SELECT sdcs_current_org()));
GRANT SELECT, INSERT, UPDATE, DELETE ON datasets TO sdcs_app;

-- One coefficient: `value` per `input_unit_id`, in `unit` (a unit symbol, e.g. kgCO2e).
-- double precision keeps every JavaScript number exactly (export -> import is lossless).
CREATE TABLE dataset_items (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  dataset_id uuid NOT NULL,
  name text NOT NULL,
  key text NOT NULL,
  value double precision NOT NULL,
  unit text,
  year integer NOT NULL,
  description text,
  link text,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  tags text[] NOT NULL DEFAULT '{}'::text[],
  input_unit_id uuid REFERENCES units (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, dataset_id) REFERENCES datasets (organization_id, id) ON DELETE CASCADE,
  -- Also the index of an organization's items in list order (dataset, key, year).
  CONSTRAINT dataset_items_key_year_key UNIQUE (organization_id, dataset_id, key, year)
);
-- Coefficient lookups by key across the organization's datasets.
CREATE INDEX dataset_items_org_key_idx ON dataset_items (organization_id, key, year);

ALTER TABLE dataset_items ENABLE ROW LEVEL SECURITY;
CREATE POLICY dataset_items_read ON dataset_items FOR SELECT
  USING (
    organization_id = (SELECT sdcs_current_org())
    OR dataset_id IN (SELECT d.id FROM datasets d WHERE d.is_common)
  );
CREATE POLICY dataset_items_insert ON dataset_items FOR INSERT
  WITH CHECK (organization_id = (SELECT sdcs_current_org()));
CREATE POLICY dataset_items_update ON dataset_items FOR UPDATE
  USING (organization_id = (SELECT sdcs_current_org()))
  WITH CHECK (organization_id = (SELECT sdcs_current_org()));
CREATE POLICY dataset_items_delete ON dataset_items FOR DELETE
  USING (organization_id = (SELECT sdcs_current_org()));
GRANT SELECT, INSERT, UPDATE, DELETE ON dataset_items TO sdcs_app;

-- Every change of an item, appended and never updated: who, when, before and after (the item
-- as the API shows it; null before a creation and after a deletion). No foreign key to the
-- item, so that the history outlives it.
CREATE TABLE dataset_item_history (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  dataset_id uuid NOT NULL,
  item_id uuid NOT NULL,
  action text NOT NULL CHECK (action IN ('create', 'update', 'delete')),
  source text NOT NULL CHECK (source IN ('api', 'import', 'dataset-delete')),
  user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  before jsonb,
  after jsonb,
  changed_at timestamptz NOT NULL DEFAULT now()
);
-- By item only: the history of a common item is read from other organizations too.
CREATE INDEX dataset_item_history_item_idx ON dataset_item_history (item_id, changed_at);

ALTER TABLE dataset_item_history ENABLE ROW LEVEL SECURITY;
CREATE POLICY dataset_item_history_read ON dataset_item_history FOR SELECT
  USING (
    organization_id = (SELECT sdcs_current_org())
    OR dataset_id IN (SELECT d.id FROM datasets d WHERE d.is_common)
  );
CREATE POLICY dataset_item_history_insert ON dataset_item_history FOR INSERT
  WITH CHECK (organization_id = (SELECT sdcs_current_org()));
GRANT SELECT, INSERT ON dataset_item_history TO sdcs_app;
