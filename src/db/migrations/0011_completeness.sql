-- Reporting completeness: a due date per form, period locks, and the log of reminders sent.

-- Days after the end of a period when its data is due; null: the form has no due date.
ALTER TABLE forms ADD COLUMN due_days integer CHECK (due_days BETWEEN 0 AND 366);

-- A lock closes (form, year, period) for one site, or for every site when site_id is null;
-- period_unit null closes the whole year. Unlocking sets unlocked_by/at: lock rows are never
-- removed, so who locked and unlocked what, and when, stays on record.
CREATE TABLE form_locks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  form_id uuid NOT NULL,
  year integer NOT NULL CHECK (year BETWEEN 1900 AND 2200),
  period_unit smallint CHECK (period_unit BETWEEN 1 AND 12),
  site_id uuid,
  created_by uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  unlocked_by uuid REFERENCES users (id),
  unlocked_at timestamptz,
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, form_id) REFERENCES forms (organization_id, id) ON DELETE CASCADE,
  FOREIGN KEY (organization_id, site_id) REFERENCES sites (organization_id, id) ON DELETE CASCADE,
  CHECK ((unlocked_by IS NULL) = (unlocked_at IS NULL))
);
-- One live lock per scope; also the index of the write guard (form, year first).
CREATE UNIQUE INDEX form_locks_live_key ON form_locks (organization_id, form_id, year, period_unit, site_id)
  NULLS NOT DISTINCT WHERE unlocked_at IS NULL;
SELECT sdcs_tenant_table('form_locks');
REVOKE DELETE ON form_locks FROM sdcs_app;

-- Who was reminded of which site's missing data for which form period, by whom and when.
CREATE TABLE completeness_reminders (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  form_id uuid NOT NULL,
  year integer NOT NULL CHECK (year BETWEEN 1900 AND 2200),
  period_unit smallint NOT NULL CHECK (period_unit BETWEEN 1 AND 12),
  site_id uuid NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id),
  sent_by uuid NOT NULL REFERENCES users (id),
  sent_at timestamptz NOT NULL,
  FOREIGN KEY (organization_id, form_id) REFERENCES forms (organization_id, id) ON DELETE CASCADE,
  FOREIGN KEY (organization_id, site_id) REFERENCES sites (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX completeness_reminders_period_idx
  ON completeness_reminders (organization_id, form_id, year, period_unit, user_id, sent_at);
SELECT sdcs_tenant_table('completeness_reminders');
REVOKE UPDATE, DELETE ON completeness_reminders FROM sdcs_app;
