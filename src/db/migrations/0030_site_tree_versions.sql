-- A version of each organization's site tree (issue 30). Readers keep a snapshot of the tree in
-- process (src/modules/sites/sites.tree.ts) and reuse it while the version they read in their
-- own transaction is the one the snapshot was built at.
--
-- Every statement that inserts, updates or deletes sites gives the organization a new version in
-- the same transaction, whoever writes (the service, a CSV import, a script, a cascade): a
-- statement-level trigger, so there is no write path that can forget it. A version is a random
-- uuid, never a counter: a transaction rolled back after taking version n+1 must not let another
-- one take n+1 for a different tree, and two databases cloned from one template must not share a
-- version for different trees.
--
-- No foreign key to organizations: an organization deleted cascades to its sites, whose trigger
-- then writes here; a leftover row of a deleted organization is harmless.
CREATE TABLE site_tree_versions (
  organization_id uuid PRIMARY KEY,
  version uuid NOT NULL DEFAULT gen_random_uuid()
);
SELECT sdcs_tenant_table('site_tree_versions');

-- Every organization starts with a version (one without sites gets its row with its first site).
INSERT INTO site_tree_versions (organization_id) SELECT id FROM organizations;

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
