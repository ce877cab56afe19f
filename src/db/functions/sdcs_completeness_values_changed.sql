-- The (form-site, period) pairs whose reports a value statement may have changed (decision 143's
-- rule: what a report depends on, not the number itself, a comment or the time it was recorded).

CREATE OR REPLACE FUNCTION public.sdcs_completeness_values_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
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
END $function$;

CREATE OR REPLACE TRIGGER form_element_submissions_completeness_on_delete AFTER DELETE ON public.form_element_submissions REFERENCING OLD TABLE AS before_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_values_changed();

CREATE OR REPLACE TRIGGER form_element_submissions_completeness_on_insert AFTER INSERT ON public.form_element_submissions REFERENCING NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_values_changed();

CREATE OR REPLACE TRIGGER form_element_submissions_completeness_on_update AFTER UPDATE ON public.form_element_submissions REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION sdcs_completeness_values_changed();
