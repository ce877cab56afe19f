-- The value trigger: contributions of the rows after the statement minus those before.

CREATE OR REPLACE FUNCTION public.sdcs_value_totals_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
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
END $function$;

CREATE OR REPLACE TRIGGER form_element_submissions_totals_on_delete AFTER DELETE ON public.form_element_submissions REFERENCING OLD TABLE AS before_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_totals_changed();

CREATE OR REPLACE TRIGGER form_element_submissions_totals_on_insert AFTER INSERT ON public.form_element_submissions REFERENCING NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_totals_changed();

CREATE OR REPLACE TRIGGER form_element_submissions_totals_on_update AFTER UPDATE ON public.form_element_submissions REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_value_totals_changed();
