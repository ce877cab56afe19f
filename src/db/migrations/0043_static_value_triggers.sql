-- The totals' and the completeness' value triggers without EXECUTE (issue 30; decision 146).
--
-- Both built their statement as text and ran it with EXECUTE, which PostgreSQL plans again on every
-- call: for a 50-value submission the totals' delta statement (five CTEs and an upsert) was planned
-- twice, once per trigger event of applyChanges' one statement, and the completeness' key query
-- ran (and was planned) even when the statement had changed no row. Now:
-- - the trigger reads its transition tables with static statements, whose plans PL/pgSQL keeps;
-- - the totals' contributions go, as arrays, to `sdcs_apply_value_deltas`, whose one statement keeps
--   a generic plan (every read in it a probe by key: decision 144) and reads the sites' ancestors
--   from a plain array, so `sdcs_site_ancestors` is inlined into that plan;
-- - a statement that changed no row returns at once.
-- `sdcs_value_delta_sql` stays for the form-sites' trigger (an activation is rare, and its source is
-- a join over the form-site's values).

-- Signed contributions of one organization's values (v the amount, c ±1, per row), added to the
-- totals of their sites and of every ancestor, in the rows of `stripe_to` (whose lock the caller
-- holds: migration 0042). Contributions of submissions of inactive form-sites are dropped: their
-- form-site's activation adds them.
CREATE FUNCTION sdcs_apply_value_deltas(org uuid, stripe_to smallint, sites uuid[], elements uuid[], years integer[],
  statuses text[], periods integer[], submissions uuid[], amounts numeric[], counts integer[])
RETURNS void LANGUAGE plpgsql SET search_path = public, pg_temp SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan AS $$
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
END $$;

CREATE OR REPLACE FUNCTION sdcs_value_totals_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  o record;
BEGIN
  -- The live numeric values after the statement (+) and before it (−), per organization.
  IF TG_OP = 'INSERT' THEN
    FOR o IN
      SELECT organization_id AS org, array_agg(site_id) AS s, array_agg(element_id) AS e, array_agg(year) AS y,
             array_agg(status) AS st, array_agg(period_unit::integer) AS p, array_agg(form_submission_id) AS sub,
             array_agg(numeric_value::numeric) AS v, array_agg(1) AS c
        FROM after_rows WHERE deleted_at IS NULL AND numeric_value IS NOT NULL
       GROUP BY 1 ORDER BY 1
    LOOP
      PERFORM sdcs_apply_value_deltas(o.org,
        sdcs_lock_stripes(o.org, ARRAY(SELECT sdcs_aggregate_stripe(k.s, k.y) FROM unnest(o.s, o.y) k(s, y))),
        o.s, o.e, o.y, o.st, o.p, o.sub, o.v, o.c);
    END LOOP;
  ELSIF TG_OP = 'UPDATE' THEN
    FOR o IN
      SELECT x.org, array_agg(x.site_id) AS s, array_agg(x.element_id) AS e, array_agg(x.year) AS y,
             array_agg(x.status) AS st, array_agg(x.period_unit) AS p, array_agg(x.form_submission_id) AS sub,
             array_agg(x.v) AS v, array_agg(x.c) AS c
        FROM (SELECT organization_id AS org, site_id, element_id, year, status, period_unit::integer AS period_unit,
                     form_submission_id, numeric_value::numeric AS v, 1 AS c
                FROM after_rows WHERE deleted_at IS NULL AND numeric_value IS NOT NULL
              UNION ALL
              SELECT organization_id, site_id, element_id, year, status, period_unit::integer,
                     form_submission_id, -numeric_value::numeric, -1
                FROM before_rows WHERE deleted_at IS NULL AND numeric_value IS NOT NULL) x
       GROUP BY 1 ORDER BY 1
    LOOP
      PERFORM sdcs_apply_value_deltas(o.org,
        sdcs_lock_stripes(o.org, ARRAY(SELECT sdcs_aggregate_stripe(k.s, k.y) FROM unnest(o.s, o.y) k(s, y))),
        o.s, o.e, o.y, o.st, o.p, o.sub, o.v, o.c);
    END LOOP;
  ELSE
    FOR o IN
      SELECT organization_id AS org, array_agg(site_id) AS s, array_agg(element_id) AS e, array_agg(year) AS y,
             array_agg(status) AS st, array_agg(period_unit::integer) AS p, array_agg(form_submission_id) AS sub,
             array_agg(-numeric_value::numeric) AS v, array_agg(-1) AS c
        FROM before_rows WHERE deleted_at IS NULL AND numeric_value IS NOT NULL
       GROUP BY 1 ORDER BY 1
    LOOP
      PERFORM sdcs_apply_value_deltas(o.org,
        sdcs_lock_stripes(o.org, ARRAY(SELECT sdcs_aggregate_stripe(k.s, k.y) FROM unnest(o.s, o.y) k(s, y))),
        o.s, o.e, o.y, o.st, o.p, o.sub, o.v, o.c);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;

-- The (form-site, period) pairs whose reports a value statement may have changed (decision 143's
-- rule: what a report depends on, not the number itself, a comment or the time it was recorded).
CREATE OR REPLACE FUNCTION sdcs_completeness_values_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  o record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    FOR o IN
      SELECT k.organization_id, array_agg(k.form_site_id ORDER BY k.form_site_id, k.period_unit) AS ids,
             array_agg(k.period_unit ORDER BY k.form_site_id, k.period_unit) AS periods
        FROM (SELECT DISTINCT r.organization_id, sub.form_site_id, r.period_unit
                FROM (SELECT DISTINCT organization_id, form_submission_id, period_unit::integer AS period_unit
                        FROM after_rows) r
                CROSS JOIN LATERAL (
                  SELECT sub.form_site_id FROM form_submissions sub
                   WHERE sub.organization_id = r.organization_id AND sub.id = r.form_submission_id OFFSET 0) sub) k
       GROUP BY 1 ORDER BY 1
    LOOP
      PERFORM sdcs_refresh_completeness_touched_at(o.organization_id, o.ids, o.periods);
    END LOOP;
  ELSIF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (SELECT 1 FROM after_rows) THEN RETURN NULL; END IF;
    FOR o IN
      SELECT k.organization_id, array_agg(k.form_site_id ORDER BY k.form_site_id, k.period_unit) AS ids,
             array_agg(k.period_unit ORDER BY k.form_site_id, k.period_unit) AS periods
        FROM (SELECT DISTINCT r.organization_id, sub.form_site_id, r.period_unit
                FROM (SELECT DISTINCT x.organization_id, x.form_submission_id, x.period_unit::integer AS period_unit
                        FROM (SELECT * FROM (
                                SELECT id, organization_id, form_submission_id, period_unit, status = 'REJECTED' AS rejected,
                                       deleted_at IS NULL AS live, created_at, element_id, value = '[]'::jsonb AS empty
                                  FROM after_rows
                                EXCEPT
                                SELECT id, organization_id, form_submission_id, period_unit, status = 'REJECTED',
                                       deleted_at IS NULL, created_at, element_id, value = '[]'::jsonb
                                  FROM before_rows) n
                              UNION ALL
                              SELECT * FROM (
                                SELECT id, organization_id, form_submission_id, period_unit, status = 'REJECTED',
                                       deleted_at IS NULL, created_at, element_id, value = '[]'::jsonb
                                  FROM before_rows
                                EXCEPT
                                SELECT id, organization_id, form_submission_id, period_unit, status = 'REJECTED',
                                       deleted_at IS NULL, created_at, element_id, value = '[]'::jsonb
                                  FROM after_rows) o) x) r
                CROSS JOIN LATERAL (
                  SELECT sub.form_site_id FROM form_submissions sub
                   WHERE sub.organization_id = r.organization_id AND sub.id = r.form_submission_id OFFSET 0) sub) k
       GROUP BY 1 ORDER BY 1
    LOOP
      PERFORM sdcs_refresh_completeness_touched_at(o.organization_id, o.ids, o.periods);
    END LOOP;
  ELSE
    FOR o IN
      SELECT k.organization_id, array_agg(k.form_site_id ORDER BY k.form_site_id, k.period_unit) AS ids,
             array_agg(k.period_unit ORDER BY k.form_site_id, k.period_unit) AS periods
        FROM (SELECT DISTINCT r.organization_id, sub.form_site_id, r.period_unit
                FROM (SELECT DISTINCT organization_id, form_submission_id, period_unit::integer AS period_unit
                        FROM before_rows) r
                CROSS JOIN LATERAL (
                  SELECT sub.form_site_id FROM form_submissions sub
                   WHERE sub.organization_id = r.organization_id AND sub.id = r.form_submission_id OFFSET 0) sub) k
       GROUP BY 1 ORDER BY 1
    LOOP
      PERFORM sdcs_refresh_completeness_touched_at(o.organization_id, o.ids, o.periods);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;

-- Room on every page of the kept tables for a new version of each row: most writes of a submission
-- update rows these tables already have, and an update that fits on its page changes no index (a
-- heap-only tuple). With full pages, 60-80% of these updates also wrote an index entry.
ALTER TABLE value_totals SET (fillfactor = 70);
ALTER TABLE value_subtree_stats SET (fillfactor = 70);
ALTER TABLE value_site_stats SET (fillfactor = 70);
ALTER TABLE completeness_cells SET (fillfactor = 70);
ALTER TABLE completeness_subtree SET (fillfactor = 70);
