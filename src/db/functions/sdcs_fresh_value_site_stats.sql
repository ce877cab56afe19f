-- The per-site rows computed from one organization's values, for the (site, element, year) keys
-- given (sites null: every key).

CREATE OR REPLACE FUNCTION public.sdcs_fresh_value_site_stats(org uuid, sites uuid[], elements uuid[], years integer[])
 RETURNS TABLE(site_id uuid, element_id uuid, year integer, period_unit integer, value_count bigint, total numeric, mean numeric, last_value numeric)
 LANGUAGE sql
 STABLE
AS $function$
  WITH kept AS (
    SELECT e.id FROM form_elements e WHERE e.organization_id = org AND e.aggregation <> 'SUM'
  ),
  v AS (
    SELECT v.site_id, v.element_id, v.year, v.period_unit, v.numeric_value, v.status, v.form_submission_id
      FROM form_element_submissions v
     WHERE sites IS NULL AND v.organization_id = org AND v.deleted_at IS NULL
       AND v.element_id = ANY (ARRAY(SELECT id FROM kept))
    UNION ALL
    -- One index lookup per key, whatever the planner thinks of the table's size (migration 0036).
    SELECT v.site_id, v.element_id, v.year, v.period_unit, v.numeric_value, v.status, v.form_submission_id
      FROM (SELECT DISTINCT * FROM unnest(sites, elements, years)) k(site_id, element_id, year)
      CROSS JOIN LATERAL (
        SELECT v.* FROM form_element_submissions v
         WHERE v.organization_id = org AND v.site_id = k.site_id AND v.element_id = k.element_id
           AND v.year = k.year AND v.deleted_at IS NULL
        OFFSET 0) v
     WHERE sites IS NOT NULL
       AND (SELECT e.aggregation FROM form_elements e WHERE e.id = k.element_id) <> 'SUM'
  )
  SELECT v.site_id, v.element_id, v.year, u.unit, count(*), sum(v.numeric_value::numeric),
         sum(v.numeric_value::numeric) / count(*),
         -- The latest period's value, the greatest of ties (as the direct computation's max).
         ((max(ARRAY[v.period_unit::float8, v.numeric_value]))[2])::numeric
    FROM v
    CROSS JOIN LATERAL (VALUES (v.period_unit::integer), (0)) u(unit)
   WHERE v.numeric_value IS NOT NULL
     AND v.status = ANY (coalesce((SELECT default_statuses FROM organizations WHERE id = org), '{}'::text[]))
     AND v.form_submission_id <> ALL (ARRAY(
       SELECT sub.id FROM form_sites fs
         JOIN form_submissions sub ON sub.organization_id = fs.organization_id AND sub.form_site_id = fs.id
        WHERE fs.organization_id = org AND NOT fs.active
          AND (sites IS NULL OR fs.site_id = ANY (ARRAY(SELECT DISTINCT unnest(sites))))))
   GROUP BY 1, 2, 3, 4
$function$;
