-- The language a person chose for the web app and for the e-mails SDCS sends them: a BCP 47 tag
-- among the languages the service ships (en, de, fr, es, pl), or NULL for "follow the browser"
-- (e-mails then go out in English). Checked by the API; the constraint keeps the column tidy.
ALTER TABLE users ADD COLUMN locale text CHECK (locale IS NULL OR locale ~ '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$');
