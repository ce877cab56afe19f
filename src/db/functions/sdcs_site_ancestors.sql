-- (site, ancestor) pairs, the site itself included, for the given sites of one organization.

CREATE OR REPLACE FUNCTION public.sdcs_site_ancestors(org uuid, ids uuid[])
 RETURNS TABLE(site_id uuid, ancestor_id uuid)
 LANGUAGE sql
 STABLE
AS $function$
  WITH RECURSIVE up(site_id, ancestor_id) AS (
    SELECT s, s FROM unnest(ids) AS s
    UNION
    SELECT up.site_id, p.parent_id
      FROM up CROSS JOIN LATERAL (
        SELECT p.parent_id FROM sites p WHERE p.organization_id = org AND p.id = up.ancestor_id OFFSET 0) p
     WHERE p.parent_id IS NOT NULL
  )
  SELECT site_id, ancestor_id FROM up
  UNION
  SELECT s, org FROM unnest(ids) AS s
$function$;
