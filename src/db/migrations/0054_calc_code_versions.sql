-- Every calcCode an activity definition has had, by SHA-256, so that an audit pack can hand out
-- the exact code behind each activity's calc_code_sha256 (0027) even after the definition was
-- changed. A trigger on activity_definitions keeps it: a new definition, or a new calcCode,
-- adds a row; nothing removes one (a deleted definition's versions stay, with the organization).
-- Code changed before this migration is lost: only the current code of each definition is
-- recorded here now, and activities calculated with older code are listed as "code version not
-- retained" by the pack.
CREATE TABLE activity_calc_code_versions (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  definition_id uuid NOT NULL,
  sha256 text NOT NULL,
  calc_code text NOT NULL,
  -- Whether the definition was common (readable by every organization) when this code was set.
  is_common boolean NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (definition_id, sha256)
);

ALTER TABLE activity_calc_code_versions ENABLE ROW LEVEL SECURITY;
CREATE POLICY activity_calc_code_versions_read ON activity_calc_code_versions FOR SELECT
  USING (organization_id = (SELECT sdcs_current_org()) OR is_common);
-- Only the trigger writes (as the table's owner); the service reads.
GRANT SELECT ON activity_calc_code_versions TO sdcs_app;

-- The trigger that keeps it: src/db/functions/sdcs_keep_calc_code_version.sql (decision 197).
INSERT INTO activity_calc_code_versions (organization_id, definition_id, sha256, calc_code, is_common)
SELECT organization_id, id, encode(sha256(convert_to(calc_code, 'UTF8')), 'hex'), calc_code, is_common
  FROM activity_definitions
ON CONFLICT DO NOTHING;
