-- Completeness kept per cell and per subtree (issue 30).
--
-- The totals of GET /completeness (how many of the scope's cells are complete, partial, missing,
-- reported without activity, on time, overdue) were counted from every value of the form's year in
-- scope: a cost that grew with the data. What is kept instead:
--
--   completeness_cells    per active form-site: one row at period_unit 0 (the form-site counts in
--                         its site's totals), and one row per period that has reports, with the
--                         period's status (COMPLETE, PARTIAL or NO_ACTIVITY: a period without a
--                         row is MISSING) and whether it was complete on time;
--   completeness_subtree  per site AND each of its ancestors, form, year and period unit: the
--                         counts of those rows over the sites of the subtree (form_sites at
--                         period 0; complete, partial, no_activity and on_time at 1..12). As for
--                         value_totals, a site's row minus its children's rows is the site's own.
--
-- A cell is judged as the direct computation (completeness.repository.ts, cellsQuery) judges it:
-- the expected elements are the form's live required elements, or all its live elements when none
-- is required; a report is a value that is not deleted nor REJECTED (for an ACTIVITY element, a
-- non-empty list) or a no-activity marker of an ACTIVITY element; on time means complete (or
-- no activity) when the last of its reports was first made, no later than the due date. Overdue
-- depends on the time of the request, so it is derived when reading (missing and partial cells of
-- the periods already due).
--
-- Kept in the same transaction as every write, under the lock of value_totals: a statement that
-- changes values, markers or form-sites recomputes the cells of the form-sites it touched (one
-- form-site's year: a few hundred values through the indexes), and adds the differences to the
-- subtree rows of their sites and ancestors. A change of what a form expects (an element added,
-- removed or made required, its due days, its period type) recomputes the form's form-sites.
-- Moving a site moves its subtree rows; deleting sites takes their rows out of their ancestors.
CREATE TABLE completeness_cells (
  organization_id uuid NOT NULL,
  form_site_id uuid NOT NULL,
  period_unit integer NOT NULL,
  site_id uuid NOT NULL,
  form_id uuid NOT NULL,
  year integer NOT NULL,
  status text CHECK (status IN ('COMPLETE', 'PARTIAL', 'NO_ACTIVITY')),
  on_time boolean NOT NULL DEFAULT false,
  PRIMARY KEY (organization_id, form_site_id, period_unit),
  CHECK ((period_unit = 0) = (status IS NULL))
);
SELECT sdcs_tenant_table('completeness_cells');

CREATE TABLE completeness_subtree (
  organization_id uuid NOT NULL,
  site_id uuid NOT NULL,
  form_id uuid NOT NULL,
  year integer NOT NULL,
  period_unit integer NOT NULL,
  form_sites bigint NOT NULL DEFAULT 0,
  complete bigint NOT NULL DEFAULT 0,
  partial bigint NOT NULL DEFAULT 0,
  no_activity bigint NOT NULL DEFAULT 0,
  on_time bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, form_id, year, site_id, period_unit)
);
SELECT sdcs_tenant_table('completeness_subtree');
CREATE INDEX completeness_subtree_site_idx ON completeness_subtree (organization_id, site_id);

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
