-- Activity definitions: calculation templates (input fields, UI code and the calcCode run in
-- the sandbox). An organization's own definitions, plus common ones that every organization
-- can read (and only their owner can change).

CREATE TABLE activity_definitions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  key text NOT NULL,            -- slug, unique per organization
  name text NOT NULL,
  description text,
  ui_code text NOT NULL,
  calc_code text NOT NULL,
  inputs jsonb NOT NULL DEFAULT '[]',
  metadata_schema jsonb,
  is_common boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, key),
  UNIQUE (organization_id, id)
);
-- Listing reads "own or common": the unique index serves the first half, this one the second.
CREATE INDEX activity_definitions_common_idx ON activity_definitions (id) WHERE is_common;

ALTER TABLE activity_definitions ENABLE ROW LEVEL SECURITY;
CREATE POLICY activity_definitions_read ON activity_definitions FOR SELECT
  USING (organization_id = (SELECT sdcs_current_org()) OR is_common);
CREATE POLICY activity_definitions_insert ON activity_definitions FOR INSERT
  WITH CHECK (organization_id = (SELECT sdcs_current_org()));
CREATE POLICY activity_definitions_update ON activity_definitions FOR UPDATE
  USING (organization_id = (SELECT sdcs_current_org()))
  WITH CHECK (organization_id = (SELECT sdcs_current_org()));
CREATE POLICY activity_definitions_delete ON activity_definitions FOR DELETE
  USING (organization_id = (SELECT sdcs_current_org()));
GRANT SELECT, INSERT, UPDATE, DELETE ON activity_definitions TO sdcs_app;
