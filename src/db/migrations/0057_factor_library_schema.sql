-- The built-in factor library (issue 44): datasets that belong to no organization. They are
-- common (readable by every organization) and read-only: the write policies compare
-- organization_id with the caller's, which a NULL never equals, and the service refuses first
-- with a message. Each library dataset says where its figures come from (data_source, link),
-- under which licence, and which version it is; a newer version is another dataset, and the
-- older one points at it (superseded_by) without changing, so pinned indicators keep their
-- figures.
ALTER TABLE datasets ALTER COLUMN organization_id DROP NOT NULL;
ALTER TABLE datasets ADD COLUMN licence text;
ALTER TABLE datasets ADD COLUMN link text;
ALTER TABLE datasets ADD COLUMN superseded_by uuid REFERENCES datasets (id);
ALTER TABLE datasets ADD CONSTRAINT datasets_library_is_common CHECK (organization_id IS NOT NULL OR is_common);

-- Library items have no organization either. The composite foreign key to their dataset is not
-- checked for them (a NULL column): one (dataset, key, year) is kept unique by this index.
ALTER TABLE dataset_items ALTER COLUMN organization_id DROP NOT NULL;
CREATE UNIQUE INDEX dataset_items_library_key_year ON dataset_items (dataset_id, key, year)
  WHERE organization_id IS NULL;

-- The terajoule, in which the IPCC gives its combustion factors (kg per TJ).
INSERT INTO units (id, organization_id, symbol, name, dimension, factor_to_base)
VALUES (md5('sdcs-unit:TJ')::uuid, NULL, 'TJ', 'terajoule', 'energy', 1000000.0 / 3.6)
ON CONFLICT DO NOTHING;
