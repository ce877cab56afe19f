-- The query that groups the form-sites a source yields as (organization_id, form_site_id) per
-- organization, in id order (run by the triggers: only they see their transition tables).

CREATE OR REPLACE FUNCTION public.sdcs_completeness_keys_sql(source text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT format($q$
    SELECT organization_id, array_agg(form_site_id ORDER BY form_site_id) AS ids
      FROM (SELECT DISTINCT organization_id, form_site_id FROM (%s) k WHERE form_site_id IS NOT NULL) k
     GROUP BY 1 ORDER BY 1 $q$, source)
$function$;
