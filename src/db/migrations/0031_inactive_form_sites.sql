-- Readers of values leave out the submissions of inactive form-sites (values.repository.ts,
-- `inactiveSubmissions`). Without this index that lookup scanned every form-site of the
-- organization's years, one per site and form: a cost that grew with the number of sites. Inactive
-- form-sites are few; this index holds only them.
CREATE INDEX form_sites_inactive_idx ON form_sites (organization_id, year) WHERE NOT active;
