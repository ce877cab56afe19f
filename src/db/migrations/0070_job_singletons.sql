-- Recurring jobs (decision 216): each process offers the job of the current time slot under one
-- key (`<kind>@<slot>`); the unique index keeps one row per key, so the work of a slot runs once
-- across processes. One-off jobs have no key.
ALTER TABLE jobs ADD COLUMN singleton_key text;
CREATE UNIQUE INDEX jobs_singleton_idx ON jobs (singleton_key) WHERE singleton_key IS NOT NULL;
