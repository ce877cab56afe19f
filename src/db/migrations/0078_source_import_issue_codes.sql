-- The row issues of a source import keep their documented code and params (decision 239, after
-- decision 225): a client says a stored row issue in the person's language, as it says the issues
-- of a refused request. Rows stored before have neither; their English message stays.
ALTER TABLE source_import_issues ADD COLUMN code text;
ALTER TABLE source_import_issues ADD COLUMN params jsonb;
