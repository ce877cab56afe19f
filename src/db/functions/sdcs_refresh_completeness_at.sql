-- The completeness' refresh of some periods (migration 0041, stripes 0042): the sites whose subtree
-- rows it spreads to are computed first, into a plain array, so that `sdcs_site_ancestors` is
-- inlined into the statement's kept plan (an argument holding a subquery kept it a function call,
-- planned again on every refresh: 0.4 ms of each submission).

CREATE OR REPLACE FUNCTION public.sdcs_refresh_completeness_at(org uuid, ids uuid[], periods integer[])
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
 SET enable_seqscan TO 'off'
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
DECLARE
  stripe_to smallint;
  site_list uuid[];
BEGIN
  stripe_to := sdcs_lock_form_site_stripes(org, ids);
  -- The sites whose cells may change (the form-sites' and the old cells'), those still existing.
  site_list := ARRAY(
    SELECT s.id FROM sites s
     WHERE s.organization_id = org
       AND s.id = ANY (ARRAY(
         SELECT fs.site_id FROM form_sites fs WHERE fs.organization_id = org AND fs.id = ANY (ids)
         UNION
         SELECT c.site_id FROM completeness_cells c
          WHERE c.organization_id = org AND c.form_site_id = ANY (ids) AND c.period_unit = ANY (periods))));
  WITH fresh AS (SELECT * FROM sdcs_fresh_completeness_cells_at(org, ids, periods)),
  old AS (
    SELECT c.form_site_id, c.period_unit, c.site_id, c.form_id, c.year, c.status, c.on_time
      FROM (SELECT DISTINCT * FROM unnest(ids, periods)) k(id, unit)
      CROSS JOIN LATERAL (
        SELECT c.* FROM completeness_cells c
         WHERE c.organization_id = org AND c.form_site_id = k.id AND c.period_unit = k.unit OFFSET 0) c
  ),
  pairs AS (
    SELECT f.form_site_id AS f_id, f.period_unit AS f_unit, f.site_id AS f_site, f.form_id AS f_form,
           f.year AS f_year, f.status AS f_status, f.on_time AS f_on_time,
           o.form_site_id AS o_id, o.period_unit AS o_unit, o.site_id AS o_site, o.form_id AS o_form,
           o.year AS o_year, o.status AS o_status, o.on_time AS o_on_time
      FROM fresh f
      FULL JOIN old o ON o.form_site_id = f.form_site_id AND o.period_unit = f.period_unit
     WHERE f.form_site_id IS NULL OR o.form_site_id IS NULL
        OR (f.site_id, f.form_id, f.year, f.status, f.on_time) IS DISTINCT FROM (o.site_id, o.form_id, o.year, o.status, o.on_time)
  ),
  -- Periods that became complete (decision 223): noted for the write to emit `period.completed`.
  noted AS (
    INSERT INTO period_completions (organization_id, form_site_id, period_unit, site_id, form_id, year, status, on_time)
    SELECT org, p.f_id, p.f_unit, p.f_site, p.f_form, p.f_year, p.f_status, p.f_on_time
      FROM pairs p
     WHERE p.f_id IS NOT NULL AND p.f_unit > 0 AND p.f_status IN ('COMPLETE', 'NO_ACTIVITY')
       AND (p.o_status IS NULL OR p.o_status NOT IN ('COMPLETE', 'NO_ACTIVITY'))
  ),
  changed AS (
    SELECT f_id AS form_site_id, f_unit AS period_unit, f_site AS site_id, f_form AS form_id, f_year AS year,
           f_status AS status, f_on_time AS on_time, 1 AS sign, false AS gone
      FROM pairs WHERE f_id IS NOT NULL
    UNION ALL
    SELECT o_id, o_unit, o_site, o_form, o_year, o_status, o_on_time, -1, f_id IS NULL
      FROM pairs WHERE o_id IS NOT NULL
  ),
  written AS (
    INSERT INTO completeness_cells AS c (organization_id, form_site_id, period_unit, site_id, form_id, year, status, on_time)
    SELECT org, x.form_site_id, x.period_unit, x.site_id, x.form_id, x.year, x.status, x.on_time
      FROM changed x WHERE x.sign = 1
     ORDER BY 2, 3
    ON CONFLICT (organization_id, form_site_id, period_unit) DO UPDATE
      SET site_id = excluded.site_id, form_id = excluded.form_id, year = excluded.year,
          status = excluded.status, on_time = excluded.on_time
  ),
  -- The cells gone, by their row addresses, each found by its key: the kept plan of a join to the
  -- cells probed the organization's whole key range (0044).
  dropped AS (
    DELETE FROM completeness_cells c
     WHERE c.ctid = ANY (ARRAY(
       SELECT d.ctid FROM changed x
        CROSS JOIN LATERAL (
          SELECT c.ctid FROM completeness_cells c
           WHERE c.organization_id = org AND c.form_site_id = x.form_site_id AND c.period_unit = x.period_unit
          OFFSET 0) d
        WHERE x.gone))
  ),
  up AS (SELECT * FROM sdcs_site_ancestors(org, site_list))
  INSERT INTO completeness_subtree AS t (organization_id, site_id, form_id, year, period_unit, stripe, form_sites, complete, partial, no_activity, on_time)
  SELECT org, up.ancestor_id, x.form_id, x.year, x.period_unit, stripe_to,
         sum(x.sign * (x.period_unit = 0)::integer), sum(x.sign * (x.status = 'COMPLETE' IS TRUE)::integer),
         sum(x.sign * (x.status = 'PARTIAL' IS TRUE)::integer), sum(x.sign * (x.status = 'NO_ACTIVITY' IS TRUE)::integer),
         sum(x.sign * x.on_time::integer)
    FROM changed x JOIN up ON up.site_id = x.site_id
   GROUP BY 1, 2, 3, 4, 5, 6
   ORDER BY 1, 3, 4, 2, 5, 6
  ON CONFLICT (organization_id, form_id, year, site_id, period_unit, stripe) DO UPDATE
    SET form_sites = t.form_sites + excluded.form_sites, complete = t.complete + excluded.complete,
        partial = t.partial + excluded.partial, no_activity = t.no_activity + excluded.no_activity,
        on_time = t.on_time + excluded.on_time;
END $function$;
