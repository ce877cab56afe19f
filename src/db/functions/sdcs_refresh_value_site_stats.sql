-- ---------------------------------------------------------------------------------------------
-- value_site_stats and value_subtree_stats

CREATE OR REPLACE FUNCTION public.sdcs_refresh_value_site_stats(org uuid, sites uuid[], elements uuid[], years integer[])
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
 SET enable_seqscan TO 'off'
AS $function$
DECLARE
  stripe_to smallint;
BEGIN
  stripe_to := sdcs_lock_stripes(org, ARRAY(SELECT sdcs_aggregate_stripe(s, y) FROM unnest(sites, years) k(s, y)));
  WITH k AS (SELECT DISTINCT * FROM unnest(sites, elements, years) k(site_id, element_id, year)),
  old AS (
    SELECT s.site_id, s.element_id, s.year, s.period_unit, s.value_count, s.total, s.mean, s.last_value
      FROM k CROSS JOIN LATERAL (
        SELECT s.* FROM value_site_stats s
         WHERE s.organization_id = org AND s.site_id = k.site_id AND s.element_id = k.element_id AND s.year = k.year
        OFFSET 0) s
  ),
  fresh AS (SELECT * FROM sdcs_fresh_value_site_stats(org, sites, elements, years)),
  diff AS (
    SELECT coalesce(f.site_id, o.site_id) AS site_id, coalesce(f.element_id, o.element_id) AS element_id,
           coalesce(f.year, o.year) AS year, coalesce(f.period_unit, o.period_unit) AS period_unit,
           (f.site_id IS NOT NULL)::integer - (o.site_id IS NOT NULL)::integer AS site_count,
           coalesce(f.value_count, 0) - coalesce(o.value_count, 0) AS value_count,
           coalesce(f.total, 0) - coalesce(o.total, 0) AS total,
           coalesce(f.mean, 0) - coalesce(o.mean, 0) AS mean_sum,
           coalesce(f.last_value, 0) - coalesce(o.last_value, 0) AS last_sum,
           f.site_id IS NULL AS gone
      FROM fresh f
      FULL JOIN old o ON o.site_id = f.site_id AND o.element_id = f.element_id AND o.year = f.year
       AND o.period_unit = f.period_unit
     WHERE f.site_id IS NULL OR o.site_id IS NULL
        OR (f.value_count, f.total, f.mean, f.last_value) IS DISTINCT FROM (o.value_count, o.total, o.mean, o.last_value)
  ),
  written AS (
    INSERT INTO value_site_stats AS s (organization_id, site_id, element_id, year, period_unit, value_count, total, mean, last_value)
    SELECT org, f.site_id, f.element_id, f.year, f.period_unit, f.value_count, f.total, f.mean, f.last_value
      FROM fresh f
      JOIN diff d ON d.site_id = f.site_id AND d.element_id = f.element_id AND d.year = f.year AND d.period_unit = f.period_unit
     ORDER BY 2, 3, 4, 5
    ON CONFLICT (organization_id, site_id, element_id, year, period_unit) DO UPDATE
      SET value_count = excluded.value_count, total = excluded.total, mean = excluded.mean, last_value = excluded.last_value
  ),
  dropped AS (
    DELETE FROM value_site_stats s USING diff d
     WHERE d.gone AND s.organization_id = org AND s.site_id = d.site_id AND s.element_id = d.element_id
       AND s.year = d.year AND s.period_unit = d.period_unit
  ),
  up AS (SELECT * FROM sdcs_site_ancestors(org, sites))
  INSERT INTO value_subtree_stats AS t (organization_id, site_id, element_id, year, period_unit, stripe, site_count, value_count, total, mean_sum, last_sum)
  SELECT org, up.ancestor_id, d.element_id, d.year, d.period_unit, stripe_to,
         sum(d.site_count), sum(d.value_count), sum(d.total), sum(d.mean_sum), sum(d.last_sum)
    FROM diff d JOIN up ON up.site_id = d.site_id
   GROUP BY 1, 2, 3, 4, 5, 6
   ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (organization_id, site_id, element_id, year, period_unit, stripe) DO UPDATE
    SET site_count = t.site_count + excluded.site_count, value_count = t.value_count + excluded.value_count,
        total = t.total + excluded.total, mean_sum = t.mean_sum + excluded.mean_sum,
        last_sum = t.last_sum + excluded.last_sum;
END $function$;
