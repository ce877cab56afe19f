-- A site moved: its subtree's totals (its own rows) leave the old ancestors and join the new ones.
-- Several sites moved by one statement (never done by the service) rebuild the organization.

CREATE OR REPLACE FUNCTION public.sdcs_value_totals_sites_moved()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  moved record;
  n integer;
BEGIN
  SELECT count(*) INTO n FROM after_rows a JOIN before_rows b ON b.id = a.id
   WHERE a.parent_id IS DISTINCT FROM b.parent_id;
  IF n = 0 THEN RETURN NULL; END IF;
  IF n > 1 THEN
    FOR moved IN SELECT DISTINCT organization_id FROM after_rows ORDER BY 1 LOOP
      PERFORM sdcs_rebuild_value_totals(moved.organization_id);
    END LOOP;
    RETURN NULL;
  END IF;
  SELECT a.id, a.organization_id, a.parent_id AS new_parent, b.parent_id AS old_parent INTO moved
    FROM after_rows a JOIN before_rows b ON b.id = a.id WHERE a.parent_id IS DISTINCT FROM b.parent_id;
  PERFORM sdcs_lock_value_totals(moved.organization_id);
  -- Each stripe of the moved subtree leaves the same stripe of the old ancestors and joins the new.
  INSERT INTO value_totals AS t (organization_id, site_id, element_id, year, status, period_unit, stripe, total, value_count)
  SELECT moved.organization_id, x.ancestor_id, m.element_id, m.year, m.status, m.period_unit, m.stripe,
         sum(x.sign * m.total), sum(x.sign * m.value_count)
    FROM value_totals m
    JOIN (SELECT ancestor_id, -1 AS sign
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[coalesce(moved.old_parent, moved.organization_id)])
          UNION ALL
          SELECT ancestor_id, 1
            FROM sdcs_site_ancestors(moved.organization_id, ARRAY[coalesce(moved.new_parent, moved.organization_id)])) x
      ON true
   WHERE m.organization_id = moved.organization_id AND m.site_id = moved.id
   GROUP BY 1, 2, 3, 4, 5, 6, 7
   ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (organization_id, site_id, element_id, year, status, period_unit, stripe) DO UPDATE
    SET total = t.total + excluded.total, value_count = t.value_count + excluded.value_count;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER sites_totals_on_update AFTER UPDATE ON public.sites REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_totals_sites_moved();
