-- A site moved: its subtree rows leave the old ancestors and join the new ones, in the three
-- aggregates that are kept per subtree (completeness, value statistics, value totals). The
-- ancestors on either side are read once for the three. Several sites moved by one statement
-- (the service never does that) rebuild the organization's aggregates instead.

CREATE OR REPLACE FUNCTION public.sdcs_sites_moved()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  moved record;
  n integer;
  leaving uuid[];
  joining uuid[];
BEGIN
  SELECT count(*) INTO n FROM after_rows a JOIN before_rows b ON b.id = a.id
   WHERE a.parent_id IS DISTINCT FROM b.parent_id;
  IF n = 0 THEN RETURN NULL; END IF;
  IF n > 1 THEN
    FOR moved IN SELECT DISTINCT organization_id FROM after_rows ORDER BY 1 LOOP
      PERFORM sdcs_rebuild_completeness(moved.organization_id);
      PERFORM sdcs_rebuild_value_site_stats(moved.organization_id);
      PERFORM sdcs_rebuild_value_totals(moved.organization_id);
    END LOOP;
    RETURN NULL;
  END IF;
  SELECT a.id, a.organization_id, a.parent_id AS new_parent, b.parent_id AS old_parent INTO moved
    FROM after_rows a JOIN before_rows b ON b.id = a.id WHERE a.parent_id IS DISTINCT FROM b.parent_id;
  PERFORM sdcs_lock_value_totals(moved.organization_id);
  -- The ancestors the subtree leaves (its rows subtracted) and joins (added), read once.
  leaving := ARRAY(SELECT ancestor_id
                     FROM sdcs_site_ancestors(moved.organization_id, ARRAY[coalesce(moved.old_parent, moved.organization_id)]));
  joining := ARRAY(SELECT ancestor_id
                     FROM sdcs_site_ancestors(moved.organization_id, ARRAY[coalesce(moved.new_parent, moved.organization_id)]));

  INSERT INTO completeness_subtree AS t (organization_id, site_id, form_id, year, period_unit, stripe, form_sites, complete, partial, no_activity, on_time)
  SELECT moved.organization_id, x.ancestor_id, m.form_id, m.year, m.period_unit, m.stripe,
         sum(x.sign * m.form_sites), sum(x.sign * m.complete), sum(x.sign * m.partial),
         sum(x.sign * m.no_activity), sum(x.sign * m.on_time)
    FROM completeness_subtree m
    JOIN (SELECT unnest(leaving), -1 UNION ALL SELECT unnest(joining), 1) x(ancestor_id, sign) ON true
   WHERE m.organization_id = moved.organization_id AND m.site_id = moved.id
   GROUP BY 1, 2, 3, 4, 5, 6
   ORDER BY 1, 3, 4, 2, 5, 6
  ON CONFLICT (organization_id, form_id, year, site_id, period_unit, stripe) DO UPDATE
    SET form_sites = t.form_sites + excluded.form_sites, complete = t.complete + excluded.complete,
        partial = t.partial + excluded.partial, no_activity = t.no_activity + excluded.no_activity,
        on_time = t.on_time + excluded.on_time;

  INSERT INTO value_subtree_stats AS t (organization_id, site_id, element_id, year, period_unit, stripe, site_count, value_count, total, mean_sum, last_sum)
  SELECT moved.organization_id, x.ancestor_id, m.element_id, m.year, m.period_unit, m.stripe,
         sum(x.sign * m.site_count), sum(x.sign * m.value_count), sum(x.sign * m.total),
         sum(x.sign * m.mean_sum), sum(x.sign * m.last_sum)
    FROM value_subtree_stats m
    JOIN (SELECT unnest(leaving), -1 UNION ALL SELECT unnest(joining), 1) x(ancestor_id, sign) ON true
   WHERE m.organization_id = moved.organization_id AND m.site_id = moved.id
   GROUP BY 1, 2, 3, 4, 5, 6
   ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (organization_id, site_id, element_id, year, period_unit, stripe) DO UPDATE
    SET site_count = t.site_count + excluded.site_count, value_count = t.value_count + excluded.value_count,
        total = t.total + excluded.total, mean_sum = t.mean_sum + excluded.mean_sum,
        last_sum = t.last_sum + excluded.last_sum;

  INSERT INTO value_totals AS t (organization_id, site_id, element_id, year, status, period_unit, stripe, total, value_count)
  SELECT moved.organization_id, x.ancestor_id, m.element_id, m.year, m.status, m.period_unit, m.stripe,
         sum(x.sign * m.total), sum(x.sign * m.value_count)
    FROM value_totals m
    JOIN (SELECT unnest(leaving), -1 UNION ALL SELECT unnest(joining), 1) x(ancestor_id, sign) ON true
   WHERE m.organization_id = moved.organization_id AND m.site_id = moved.id
   GROUP BY 1, 2, 3, 4, 5, 6, 7
   ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (organization_id, site_id, element_id, year, status, period_unit, stripe) DO UPDATE
    SET total = t.total + excluded.total, value_count = t.value_count + excluded.value_count;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER sites_aggregates_on_update AFTER UPDATE ON public.sites REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_sites_moved();
