-- Indicators (expressions over form data, activities, coefficients and other indicators) and
-- their targets; how a NUMBER element aggregates over periods.

-- SUM for flows (kWh, litres); LAST or AVERAGE for stocks (headcount, floor area). Across sites
-- values always add up; this only decides how one site's periods combine.
ALTER TABLE form_elements
  ADD COLUMN aggregation text NOT NULL DEFAULT 'SUM' CHECK (aggregation IN ('SUM', 'LAST', 'AVERAGE'));

CREATE TABLE indicators (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  label text,
  description text,
  unit_id uuid REFERENCES units (id),
  display_unit_id uuid REFERENCES units (id),
  tags text[] NOT NULL DEFAULT '{}'::text[],
  -- The token list as saved (validated and parsed at save time); references are read from it.
  expression_parts jsonb NOT NULL,
  preferred_dataset_item_name text,
  preferred_dataset_item_dataset_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id)
);
CREATE INDEX indicators_org_idx ON indicators (organization_id, name);
SELECT sdcs_tenant_table('indicators');

-- A target of one indicator; its entries (year, month or quarter, site, value) are one list
-- that PUT replaces whole. Deleting the indicator deletes its targets.
CREATE TABLE targets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  indicator_id uuid NOT NULL,
  title text NOT NULL,
  baseline_year integer CHECK (baseline_year BETWEEN 1900 AND 2200),
  baseline_month integer CHECK (baseline_month BETWEEN 1 AND 12),
  baseline_quarter integer CHECK (baseline_quarter BETWEEN 1 AND 4),
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  target_entries jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, indicator_id) REFERENCES indicators (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX targets_indicator_idx ON targets (organization_id, indicator_id, created_at);
SELECT sdcs_tenant_table('targets');

-- Activities are summed by element, within the scope's sites, years and periods.
CREATE INDEX activities_aggregate_idx
  ON activities (organization_id, element_id, year, period_unit) INCLUDE (site_id, value, form_element_submission_id);
