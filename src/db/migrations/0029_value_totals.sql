-- Pre-aggregated values (issue 30). `value_totals` holds, for every site AND for each of its
-- ancestors, the exact sum and count of the live numeric values of the site's subtree per
-- (element, year, status, period unit): a row of site X sums the values of X and of all its
-- descendants. The root, a region and a plant each answer a SUM operand from a handful of rows.
--
-- What counts is exactly what the direct computation counts (values.repository.ts): values not
-- deleted, with a numeric value, whose form-site is active. Sums are `numeric`, so they are exact
-- whatever the order the deltas arrive in (each double is taken at its 15 significant digits).
--
-- Kept in the same transaction as every write by statement-level triggers over transition tables
-- (one grouped statement per written statement, whatever its size): values inserted, updated
-- (revived, rewritten, status changed by a review, marked deleted) or deleted; form-sites
-- activated or deactivated (or deleted while inactive); sites moved in the tree.
--
-- Writers of one organization take a transaction-scoped advisory lock before changing its rows:
-- ancestors' rows are hot (every write touches the root's), and a write statement can fire
-- several triggers (applyChanges inserts and updates in one statement). With the lock, two
-- transactions never hold some of the same rows each while waiting for the other's: no deadlock,
-- and the row upserts (in key order) lose no update.
CREATE TABLE value_totals (
  organization_id uuid NOT NULL,
  -- The site whose subtree (itself and every descendant) these values belong to.
  site_id uuid NOT NULL,
  element_id uuid NOT NULL,
  year integer NOT NULL,
  status text NOT NULL,
  period_unit integer NOT NULL,
  total numeric NOT NULL DEFAULT 0,
  value_count bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, site_id, element_id, year, status, period_unit)
);
SELECT sdcs_tenant_table('value_totals');

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
