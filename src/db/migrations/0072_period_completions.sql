-- Periods that became complete (decision 223): the completeness refresh notes here every cell of a
-- form-site period whose status moved from missing or PARTIAL to COMPLETE or NO_ACTIVITY (every
-- expected element reported), under the lock it already holds, in the writing transaction. The
-- write that caused it takes its rows out again (DELETE ... RETURNING) and emits one
-- `period.completed` webhook event per row, in the same transaction; a row left by a write that
-- does not emit (a form's expected elements changed, a form-site activated) is emitted by the
-- next write of the organization that does, or by the recurring sweep.
CREATE TABLE period_completions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id uuid NOT NULL,
  form_site_id uuid NOT NULL,
  period_unit integer NOT NULL CHECK (period_unit > 0),
  site_id uuid NOT NULL,
  form_id uuid NOT NULL,
  year integer NOT NULL,
  status text NOT NULL CHECK (status IN ('COMPLETE', 'NO_ACTIVITY')),
  on_time boolean NOT NULL,
  completed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX period_completions_org_idx ON period_completions (organization_id, id);
SELECT sdcs_tenant_table('period_completions');
