-- Compound units in the catalog, so that intensities and factors have a unit of their own
-- (dimension `a/b`, base unit: the base of a per the base of b). Ids as the rest of the catalog.
INSERT INTO units (id, organization_id, symbol, name, dimension, factor_to_base)
SELECT md5('sdcs-unit:' || symbol)::uuid, NULL, symbol, name, dimension, factor
FROM (VALUES
  -- emissions intensities, base kgCO2e per base unit of the denominator
  ('kgCO2e/m2', 'kilogram CO2e per square metre', 'emissions/area', 1),
  ('tCO2e/m2', 'tonne CO2e per square metre', 'emissions/area', 1000),
  ('kgCO2e/count', 'kilogram CO2e per unit counted', 'emissions/count', 1),
  ('tCO2e/count', 'tonne CO2e per unit counted', 'emissions/count', 1000),
  ('kgCO2e/EUR', 'kilogram CO2e per euro', 'emissions/currency_EUR', 1),
  ('tCO2e/kEUR', 'tonne CO2e per thousand euro', 'emissions/currency_EUR', 1),
  ('kgCO2e/t', 'kilogram CO2e per tonne', 'emissions/mass', 0.001),
  ('tCO2e/t', 'tonne CO2e per tonne', 'emissions/mass', 1),
  -- emission factors, base kgCO2e per kWh, per m3, per km
  ('gCO2e/kWh', 'gram CO2e per kilowatt-hour', 'emissions/energy', 0.001),
  ('kgCO2e/kWh', 'kilogram CO2e per kilowatt-hour', 'emissions/energy', 1),
  ('kgCO2e/MWh', 'kilogram CO2e per megawatt-hour', 'emissions/energy', 0.001),
  ('tCO2e/MWh', 'tonne CO2e per megawatt-hour', 'emissions/energy', 1),
  ('kgCO2e/L', 'kilogram CO2e per litre', 'emissions/volume', 1000),
  ('kgCO2e/km', 'kilogram CO2e per kilometre', 'emissions/distance', 1),
  -- energy intensities, base kWh per base unit of the denominator
  ('kWh/m2', 'kilowatt-hour per square metre', 'energy/area', 1),
  ('MWh/m2', 'megawatt-hour per square metre', 'energy/area', 1000),
  ('kWh/count', 'kilowatt-hour per unit counted', 'energy/count', 1),
  ('MWh/count', 'megawatt-hour per unit counted', 'energy/count', 1000)
) AS catalog (symbol, name, dimension, factor)
ON CONFLICT DO NOTHING;
