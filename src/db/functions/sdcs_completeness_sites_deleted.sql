-- Sites deleted (with their bare form-sites): the subtree rows of each deleted site whose parent
-- stays leave the parent and its ancestors, and the deleted sites' rows go.

CREATE OR REPLACE FUNCTION public.sdcs_completeness_sites_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  o record;
BEGIN
  FOR o IN SELECT DISTINCT organization_id FROM before_rows ORDER BY 1 LOOP
    IF NOT EXISTS (SELECT 1 FROM organizations WHERE id = o.organization_id) THEN
      DELETE FROM completeness_subtree WHERE organization_id = o.organization_id;
      DELETE FROM completeness_cells WHERE organization_id = o.organization_id;
      CONTINUE;
    END IF;
    PERFORM sdcs_lock_value_totals(o.organization_id);
    INSERT INTO completeness_subtree AS t (organization_id, site_id, form_id, year, period_unit, stripe, form_sites, complete, partial, no_activity, on_time)
    SELECT o.organization_id, a.ancestor_id, m.form_id, m.year, m.period_unit, m.stripe,
           -sum(m.form_sites), -sum(m.complete), -sum(m.partial), -sum(m.no_activity), -sum(m.on_time)
      FROM before_rows d
      JOIN completeness_subtree m ON m.organization_id = o.organization_id AND m.site_id = d.id
      JOIN sdcs_site_ancestors(o.organization_id, ARRAY(
             SELECT DISTINCT coalesce(d.parent_id, o.organization_id) FROM before_rows d
              WHERE d.organization_id = o.organization_id
                AND NOT EXISTS (SELECT 1 FROM before_rows p WHERE p.id = d.parent_id))) a
        ON a.site_id = coalesce(d.parent_id, o.organization_id)
     WHERE d.organization_id = o.organization_id
     GROUP BY 1, 2, 3, 4, 5, 6
     ORDER BY 1, 3, 4, 2, 5, 6
    ON CONFLICT (organization_id, form_id, year, site_id, period_unit, stripe) DO UPDATE
      SET form_sites = t.form_sites + excluded.form_sites, complete = t.complete + excluded.complete,
          partial = t.partial + excluded.partial, no_activity = t.no_activity + excluded.no_activity,
          on_time = t.on_time + excluded.on_time;
    DELETE FROM completeness_subtree m USING before_rows d
     WHERE m.organization_id = o.organization_id AND d.organization_id = o.organization_id AND m.site_id = d.id;
    DELETE FROM completeness_cells c USING before_rows d
     WHERE c.organization_id = o.organization_id AND d.organization_id = o.organization_id AND c.site_id = d.id;
  END LOOP;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER sites_completeness_on_delete AFTER DELETE ON public.sites REFERENCING OLD TABLE AS before_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_sites_deleted();
