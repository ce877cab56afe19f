-- The language a person chose for the web app and for the e-mails SDCS sends them: a BCP 47 tag
-- among the languages the service ships (en, de, fr, es, pl), or NULL for "follow the browser"
-- (e-mails then go out in English). Checked by the API; the constraint keeps the column tidy.
ALTER TABLE users ADD COLUMN locale text CHECK (locale IS NULL OR locale ~ '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$');

-- What an organization writes for people, in other languages: a form's name per language, an
-- element's label and help text per language (`{"de": "Strom", "fr": "Électricité"}`). The text
-- as written (forms.name, form_elements.label) stays the one shown when a language has none.
ALTER TABLE forms ADD COLUMN names jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE form_elements ADD COLUMN labels jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE form_elements ADD COLUMN help_texts jsonb NOT NULL DEFAULT '{}'::jsonb;
