-- Pre-aggregated values for LAST and AVERAGE operands (issue 30; migration 0029 holds the SUMs).
--
-- A LAST operand adds up each site's latest period in scope, an AVERAGE operand each site's mean:
-- neither is a sum of values, so per-status sums cannot answer them. What is kept instead, for the
-- organization's default statuses (the statuses a request reads unless it names others):
--
--   value_site_stats     per site (its own values only), element, year and period unit (1..12, or
--                        0 for the whole year): count, exact sum, mean (sum / count, numeric) and the
--                        latest period's value (the greatest value of the latest period unit, as the
--                        direct computation picks it);
--   value_subtree_stats  per site AND each of its ancestors, the same keys: the sums over the sites
--                        of the subtree of the above (sites with values, values, total, means,
--                        latest values). These are sums over sites, so a region's row minus its
--                        children's rows is the region's own, as for value_totals.
--
-- What counts is what the direct computation counts: values not deleted, numeric, whose form-site
-- is active, with a status among the organization's default statuses.
--
-- Kept in the same transaction as every write: a statement that changes values (or activates,
-- deactivates or deletes a form-site) recomputes the per-site rows of every (site, element, year)
-- it touched from that site's values (a dozen rows through the index below), and adds the
-- differences to the subtree rows of the site and its ancestors. Moving a site moves its subtree
-- rows; changing the organization's default statuses rebuilds its rows. An element's aggregation
-- plays no part: every numeric element is kept. Same lock as value_totals.
CREATE TABLE value_site_stats (
  organization_id uuid NOT NULL,
  site_id uuid NOT NULL,
  element_id uuid NOT NULL,
  year integer NOT NULL,
  period_unit integer NOT NULL,
  value_count bigint NOT NULL,
  total numeric NOT NULL,
  mean numeric NOT NULL,
  last_value numeric NOT NULL,
  PRIMARY KEY (organization_id, site_id, element_id, year, period_unit)
);
SELECT sdcs_tenant_table('value_site_stats');

CREATE TABLE value_subtree_stats (
  organization_id uuid NOT NULL,
  site_id uuid NOT NULL,
  element_id uuid NOT NULL,
  year integer NOT NULL,
  period_unit integer NOT NULL,
  site_count bigint NOT NULL DEFAULT 0,
  value_count bigint NOT NULL DEFAULT 0,
  total numeric NOT NULL DEFAULT 0,
  mean_sum numeric NOT NULL DEFAULT 0,
  last_sum numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, site_id, element_id, year, period_unit)
);
SELECT sdcs_tenant_table('value_subtree_stats');

-- One site's values of one element and year, for the recomputation above.
CREATE INDEX form_element_submissions_site_stats_idx
  ON form_element_submissions (organization_id, site_id, element_id, year) WHERE deleted_at IS NULL;

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
