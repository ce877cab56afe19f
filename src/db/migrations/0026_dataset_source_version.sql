-- Where a dataset's coefficients come from and which edition they are (issue 26): both free
-- text, optional, shown by GET /datasets and beside the CSV export.
ALTER TABLE datasets ADD COLUMN data_source text;
ALTER TABLE datasets ADD COLUMN version text;
