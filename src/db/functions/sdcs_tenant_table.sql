-- Puts a table with an organization_id column under tenant isolation: row-level security
-- limited to the current organization, and table privileges for the application role.

CREATE OR REPLACE FUNCTION public.sdcs_tenant_table(tbl regclass)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', tbl);
  EXECUTE format(
    'CREATE POLICY tenant_isolation ON %s USING (organization_id = (SELECT sdcs_current_org())) '
    || 'WITH CHECK (organization_id = (SELECT sdcs_current_org()))', tbl);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO sdcs_app', tbl);
END $function$;
