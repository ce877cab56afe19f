-- A row for the whole organization in every subtree table (issue 30).
--
-- The subtree tables (value_totals, value_subtree_stats, completeness_subtree) have a row per site
-- and each of its ancestors, so a tree under one root answers the whole organization from the
-- root's rows. Many organizations have no such root: a retailer's 10,000 stores are all top-level
-- sites, and the whole organization was the sum of 10,000 sites' rows, read on every request
-- (completeness totals over 10,000 flat sites: 86 ms of a 140 ms request, growing with the sites).
--
-- Now the organization itself is the last ancestor of every site: its rows carry, as site_id, the
-- organization's id (no site has it: both are random UUIDs), and sum every site's. The readers
-- cover the whole organization with that one row (indicators.scope.ts, completeness.kept.ts).
--
-- sdcs_site_ancestors, which every trigger, rebuild and recomputation spreads its rows with, adds
-- the pair (site, organization) for every site given; given the organization's id itself, it
-- answers that id alone. A move spreads its subtree's rows over the ancestors of the old parent
-- (the organization, for a top-level site) with -1 and of the new one with +1, so the organization's
-- row is unchanged, as it must be; a deleted site's counts leave its parent's ancestors, or the
-- organization's row for a top-level site. The rows of the organizations stored so far are the sums
-- of their top-level sites' rows (no value, cell or form-site belongs to a site that no longer
-- exists: sites with data cannot be deleted).

INSERT INTO value_totals (organization_id, site_id, element_id, year, status, period_unit, total, value_count)
SELECT t.organization_id, t.organization_id, t.element_id, t.year, t.status, t.period_unit, sum(t.total), sum(t.value_count)
  FROM value_totals t
  JOIN sites s ON s.organization_id = t.organization_id AND s.id = t.site_id AND s.parent_id IS NULL
 GROUP BY 1, 2, 3, 4, 5, 6
 ORDER BY 1, 2, 3, 4, 5, 6;

INSERT INTO value_subtree_stats (organization_id, site_id, element_id, year, period_unit, site_count, value_count, total, mean_sum, last_sum)
SELECT t.organization_id, t.organization_id, t.element_id, t.year, t.period_unit,
       sum(t.site_count), sum(t.value_count), sum(t.total), sum(t.mean_sum), sum(t.last_sum)
  FROM value_subtree_stats t
  JOIN sites s ON s.organization_id = t.organization_id AND s.id = t.site_id AND s.parent_id IS NULL
 GROUP BY 1, 2, 3, 4, 5
 ORDER BY 1, 2, 3, 4, 5;

INSERT INTO completeness_subtree (organization_id, site_id, form_id, year, period_unit, form_sites, complete, partial, no_activity, on_time)
SELECT t.organization_id, t.organization_id, t.form_id, t.year, t.period_unit,
       sum(t.form_sites), sum(t.complete), sum(t.partial), sum(t.no_activity), sum(t.on_time)
  FROM completeness_subtree t
  JOIN sites s ON s.organization_id = t.organization_id AND s.id = t.site_id AND s.parent_id IS NULL
 GROUP BY 1, 2, 3, 4, 5
 ORDER BY 1, 3, 4, 2, 5;

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
