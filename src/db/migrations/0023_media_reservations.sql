-- The storage quota counts uploaded bytes and the declared sizes of live upload URLs: a pending
-- upload reserves its declared size until its presigned policy expires (reserved_until), so
-- parallel upload URLs cannot together promise more than the quota. Older pending rows (from
-- before this column) reserve nothing.
ALTER TABLE media ADD COLUMN reserved_until timestamptz;
