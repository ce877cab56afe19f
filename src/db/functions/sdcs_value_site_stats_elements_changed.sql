-- Elements whose statistics start or stop being kept: every key of their values is refreshed. Every
-- stripe of the organization is taken before the values are read (see above).

CREATE OR REPLACE FUNCTION public.sdcs_value_site_stats_elements_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  o record;
  k record;
BEGIN
  FOR o IN SELECT x.organization_id, array_agg(x.id) AS ids
             FROM (SELECT id, organization_id, aggregation <> 'SUM' AS kept FROM after_rows
                   EXCEPT SELECT id, organization_id, aggregation <> 'SUM' FROM before_rows) x
            GROUP BY 1 ORDER BY 1
  LOOP
    PERFORM sdcs_lock_value_totals(o.organization_id);
    SELECT array_agg(site_id) AS s, array_agg(element_id) AS e, array_agg(year) AS y INTO k
      FROM (SELECT DISTINCT v.site_id, v.element_id, v.year FROM form_element_submissions v
             WHERE v.organization_id = o.organization_id AND v.element_id = ANY (o.ids)
               AND v.deleted_at IS NULL AND v.numeric_value IS NOT NULL) x;
    IF k.s IS NOT NULL THEN
      PERFORM sdcs_refresh_value_site_stats(o.organization_id, k.s, k.e, k.y);
    END IF;
    -- An element no longer kept leaves subtree keys whose rows add up to zero (over the stripes)
    -- behind: gone too, every stripe being held.
    DELETE FROM value_subtree_stats t
     USING (SELECT z.site_id, z.element_id, z.year, z.period_unit FROM value_subtree_stats z
             WHERE z.organization_id = o.organization_id AND z.element_id = ANY (o.ids)
             GROUP BY 1, 2, 3, 4
            HAVING sum(z.site_count) = 0 AND sum(z.value_count) = 0 AND sum(z.total) = 0
               AND sum(z.mean_sum) = 0 AND sum(z.last_sum) = 0) z
     WHERE t.organization_id = o.organization_id AND t.site_id = z.site_id AND t.element_id = z.element_id
       AND t.year = z.year AND t.period_unit = z.period_unit;
  END LOOP;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER form_elements_stats_on_update AFTER UPDATE ON public.form_elements REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_site_stats_elements_changed();
