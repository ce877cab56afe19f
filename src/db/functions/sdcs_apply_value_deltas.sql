-- Signed contributions of one organization's values (v the amount, c ±1, per row), added to the
-- totals of their sites and of every ancestor, in the rows of `stripe_to` (whose lock the caller
-- holds: migration 0042). Contributions of submissions of inactive form-sites are dropped: their
-- form-site's activation adds them.

CREATE OR REPLACE FUNCTION public.sdcs_apply_value_deltas(org uuid, stripe_to smallint, sites uuid[], elements uuid[], years integer[], statuses text[], periods integer[], submissions uuid[], amounts numeric[], counts integer[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
 SET enable_seqscan TO 'off'
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
DECLARE
  site_list constant uuid[] := ARRAY(SELECT DISTINCT s FROM unnest(sites) s);
BEGIN
  WITH changed AS (
    SELECT * FROM unnest(sites, elements, years, statuses, periods, submissions, amounts, counts)
      AS c(site_id, element_id, year, status, period_unit, form_submission_id, v, c)
  ),
  inactive AS (
    SELECT s.id
      FROM (SELECT DISTINCT form_submission_id FROM changed WHERE form_submission_id IS NOT NULL) k
      CROSS JOIN LATERAL (
        SELECT sub.id FROM form_submissions sub
          JOIN form_sites fs ON fs.organization_id = sub.organization_id AND fs.id = sub.form_site_id
         WHERE sub.organization_id = org AND sub.id = k.form_submission_id AND NOT fs.active OFFSET 0) s
  ),
  d AS (
    SELECT site_id, element_id, year, status, period_unit, sum(v) AS total, sum(c) AS value_count
      FROM changed
     WHERE form_submission_id IS NULL OR form_submission_id <> ALL (ARRAY(SELECT id FROM inactive))
     GROUP BY 1, 2, 3, 4, 5
    HAVING sum(v) <> 0 OR sum(c) <> 0
  )
  INSERT INTO value_totals AS t (organization_id, site_id, element_id, year, status, period_unit, stripe, total, value_count)
  SELECT org, a.ancestor_id, d.element_id, d.year, d.status, d.period_unit, stripe_to,
         sum(d.total), sum(d.value_count)
    FROM d JOIN sdcs_site_ancestors(org, site_list) a ON a.site_id = d.site_id
   GROUP BY 1, 2, 3, 4, 5, 6, 7
   ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (organization_id, site_id, element_id, year, status, period_unit, stripe) DO UPDATE
    SET total = t.total + excluded.total, value_count = t.value_count + excluded.value_count;
END $function$;
