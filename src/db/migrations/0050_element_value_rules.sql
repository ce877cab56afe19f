-- Plausibility rules of NUMBER elements (issue 42; decisions 159 and 160).
--
-- Hard rules: min_value and max_value bound a value (both inclusive, in the element's unit, after
-- conversion from the unit it was sent in); integer_only refuses a value with a fraction. Soft rule:
-- warn_change_factor (> 1) flags a value more than that factor away from the same element's value
-- of the previous period or of the same period last year, without refusing it. The rules are read
-- when a value is written; changing one does not rewrite stored values.
ALTER TABLE form_elements
  ADD COLUMN min_value double precision,
  ADD COLUMN max_value double precision,
  ADD COLUMN integer_only boolean NOT NULL DEFAULT false,
  ADD COLUMN warn_change_factor double precision,
  ADD CONSTRAINT form_elements_rules_number_only
    CHECK (type = 'NUMBER' OR (min_value IS NULL AND max_value IS NULL AND NOT integer_only
                               AND warn_change_factor IS NULL)),
  ADD CONSTRAINT form_elements_rules_range
    CHECK (min_value IS NULL OR max_value IS NULL OR min_value <= max_value),
  ADD CONSTRAINT form_elements_rules_factor CHECK (warn_change_factor IS NULL OR warn_change_factor > 1);
