-- Bulk writes and the per-site statistics (0033).
--
-- The statistics' trigger recomputes every (site, element, year) a statement touched, one index
-- lookup per key. That is right for what the service writes (a submission, an import: a few
-- hundred keys), but a statement that loads most of an organization's values at once (a data
-- migration, a first load of several years, a test or benchmark seed) pays a lookup, a full join
-- and an upsert per key where one grouped pass over the organization's values gives the same
-- rows: a 9.6 million-value INSERT ran for over 21 minutes.
--
-- So when a statement touches at least 5,000 keys of an organization and at least half as many
-- as the organization had before it, the organization's rows are rebuilt set-wise instead (its
-- values read once and grouped). The 5,000 can be changed for a transaction with the setting
-- `sdcs.stats_bulk_keys` (the tests set it low to take the set-wise path with little data).
-- Either way the rows are recomputed from the values, so the two
-- paths give the same rows, and another trigger of the same statement (an upsert fires the
-- INSERT and the UPDATE ones) finds nothing left to change. What the size check costs is bounded
-- by the statement: it counts the organization's keys only up to twice the statement's.
CREATE OR REPLACE FUNCTION sdcs_value_site_stats_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp AS $$
DECLARE
  cols constant text := 'organization_id, site_id, element_id, year';
  -- An update counts when something the rows depend on changed (not a timestamp, a comment).
  changed constant text := 'FROM after_rows n JOIN before_rows o ON o.id = n.id
     WHERE (n.numeric_value IS NOT NULL OR o.numeric_value IS NOT NULL)
       AND (o.status, o.numeric_value, o.deleted_at IS NULL, o.period_unit, o.site_id, o.element_id, o.year,
            o.form_submission_id)
           IS DISTINCT FROM (n.status, n.numeric_value, n.deleted_at IS NULL, n.period_unit, n.site_id,
            n.element_id, n.year, n.form_submission_id)';
  keys text;
  o record;
  touched integer;
  before integer;
  bulk constant integer := coalesce(nullif(current_setting('sdcs.stats_bulk_keys', true), '')::integer, 5000);
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT EXISTS (SELECT 1 FROM after_rows WHERE numeric_value IS NOT NULL) THEN RETURN NULL; END IF;
    keys := format('SELECT %s FROM after_rows WHERE numeric_value IS NOT NULL', cols);
  ELSIF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (SELECT 1 FROM after_rows) THEN RETURN NULL; END IF;
    keys := format('SELECT n.organization_id, n.site_id, n.element_id, n.year %s
                    UNION ALL SELECT o.organization_id, o.site_id, o.element_id, o.year %s', changed, changed);
  ELSE
    IF NOT EXISTS (SELECT 1 FROM before_rows WHERE numeric_value IS NOT NULL) THEN RETURN NULL; END IF;
    keys := format('SELECT %s FROM before_rows WHERE numeric_value IS NOT NULL', cols);
  END IF;
  FOR o IN EXECUTE sdcs_value_site_stats_keys_sql(keys) LOOP
    touched := cardinality(o.s);
    IF touched >= bulk THEN
      SELECT count(*) INTO before FROM (
        SELECT 1 FROM value_site_stats s
         WHERE s.organization_id = o.organization_id AND s.period_unit = 0
         LIMIT 2 * touched + 1) x;
    END IF;
    IF touched >= bulk AND 2 * touched > before THEN
      PERFORM sdcs_rebuild_value_site_stats(o.organization_id);
    ELSE
      PERFORM sdcs_refresh_value_site_stats(o.organization_id, o.s, o.e, o.y);
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
