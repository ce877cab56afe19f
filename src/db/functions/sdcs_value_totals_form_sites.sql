-- The totals' form-site trigger (0029) asked whether a statement changed any form-site's activation
-- with EXISTS over a join of the statement's old and new rows. Transition tables have neither
-- statistics nor indexes, and for an EXISTS the planner picks the join that finds a first row
-- soonest: a nested loop, which, when no activation changed (marking form-sites submitted, the
-- usual case), compares every new row with every old one. Marking 40,000 form-sites submitted in one
-- statement took 138 s, 100,000 about 15 minutes (measured; it is what a bulk load of form-sites
-- with their submissions does). The changed rows are now a set difference (EXCEPT: hashed or
-- sorted, linear), both in the check and in the rows whose values are added or subtracted.

CREATE OR REPLACE FUNCTION public.sdcs_value_totals_form_sites()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
  signs text;
  k record;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    -- The form-sites whose activation changed: set difference, not a join (decision 144).
    IF NOT EXISTS (SELECT id, active FROM after_rows EXCEPT SELECT id, active FROM before_rows) THEN
      RETURN NULL;
    END IF;
    SELECT array_agg(organization_id) AS o, array_agg(site_id) AS s, array_agg(year) AS y INTO k
      FROM (SELECT id, organization_id, site_id, year, active FROM after_rows
            EXCEPT SELECT id, organization_id, site_id, year, active FROM before_rows) x;
    PERFORM sdcs_lock_stripes_of(k.o, k.s, k.y);
    signs := 'SELECT n.id, n.organization_id, CASE WHEN n.active THEN 1 ELSE -1 END AS sign
                FROM (SELECT id, organization_id, active FROM after_rows
                      EXCEPT SELECT id, organization_id, active FROM before_rows) n';
  ELSE
    IF NOT EXISTS (SELECT 1 FROM before_rows WHERE NOT active) THEN RETURN NULL; END IF;
    SELECT array_agg(organization_id) AS o, array_agg(site_id) AS s, array_agg(year) AS y INTO k
      FROM before_rows WHERE NOT active;
    PERFORM sdcs_lock_stripes_of(k.o, k.s, k.y);
    signs := 'SELECT o.id, o.organization_id, 1 AS sign FROM before_rows o WHERE NOT o.active';
  END IF;
  -- The form-site's own change is what counts here, not the statement's inactive check (a
  -- deactivated form-site's values are subtracted although it is now inactive): the source
  -- gives a null submission id, which that check lets through.
  EXECUTE sdcs_value_delta_sql(format($s$
    SELECT v.organization_id, v.site_id, v.element_id, v.year, v.status, v.period_unit,
           NULL::uuid AS form_submission_id, f.sign * v.numeric_value::numeric AS v, f.sign AS c
      FROM (%s) f
      JOIN form_submissions sub ON sub.organization_id = f.organization_id AND sub.form_site_id = f.id
      JOIN form_element_submissions v ON v.organization_id = sub.organization_id AND v.form_submission_id = sub.id
     WHERE v.deleted_at IS NULL AND v.numeric_value IS NOT NULL $s$, signs));
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER form_sites_totals_on_delete AFTER DELETE ON public.form_sites REFERENCING OLD TABLE AS before_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_totals_form_sites();

CREATE OR REPLACE TRIGGER form_sites_totals_on_update AFTER UPDATE ON public.form_sites REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_totals_form_sites();
