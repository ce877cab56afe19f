-- The unit an activity definition's calcCode returns (kgCO2e, kWh, …): an indicator converts
-- activity sums from it like element values. Null: no unit (as before).
ALTER TABLE activity_definitions ADD COLUMN unit_id uuid REFERENCES units (id);
