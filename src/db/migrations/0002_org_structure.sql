-- Organization structure: sites (a tree), site assignments of members, and units.

CREATE TABLE sites (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  parent_id uuid,
  name text NOT NULL,
  code text,
  latitude double precision CHECK (latitude BETWEEN -90 AND 90),
  longitude double precision CHECK (longitude BETWEEN -180 AND 180),
  address jsonb NOT NULL DEFAULT '{}'::jsonb,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  -- A parent in another organization is impossible, not merely checked.
  FOREIGN KEY (organization_id, parent_id) REFERENCES sites (organization_id, id),
  CHECK (parent_id IS NULL OR parent_id <> id)
);
CREATE UNIQUE INDEX sites_code_key ON sites (organization_id, lower(code)) WHERE code IS NOT NULL;
CREATE INDEX sites_parent_idx ON sites (organization_id, parent_id);
CREATE INDEX sites_metadata_idx ON sites USING gin (metadata jsonb_path_ops);
SELECT sdcs_tenant_table('sites');

-- Sites a member is assigned to; an assignment includes every descendant of the site.
CREATE TABLE membership_sites (
  organization_id uuid NOT NULL,
  user_id uuid NOT NULL,
  site_id uuid NOT NULL,
  PRIMARY KEY (organization_id, user_id, site_id),
  FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE,
  FOREIGN KEY (organization_id, site_id) REFERENCES sites (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX membership_sites_site_idx ON membership_sites (organization_id, site_id);
SELECT sdcs_tenant_table('membership_sites');

-- Units: a shared catalog (organization_id NULL) plus each organization's own units.
-- value_in_base = value * factor_to_base; conversion only within one dimension.
CREATE TABLE units (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE,
  symbol text NOT NULL,
  name text NOT NULL,
  dimension text NOT NULL,
  factor_to_base double precision NOT NULL CHECK (factor_to_base > 0),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX units_catalog_symbol_key ON units (symbol) WHERE organization_id IS NULL;
CREATE UNIQUE INDEX units_org_symbol_key ON units (organization_id, symbol) WHERE organization_id IS NOT NULL;
ALTER TABLE units ENABLE ROW LEVEL SECURITY;
CREATE POLICY units_read ON units FOR SELECT
  USING (organization_id IS NULL OR organization_id = (SELECT sdcs_current_org()));
CREATE POLICY units_write ON units FOR INSERT WITH CHECK (organization_id = (SELECT sdcs_current_org()));
CREATE POLICY units_update ON units FOR UPDATE
  USING (organization_id = (SELECT sdcs_current_org())) WITH CHECK (organization_id = (SELECT sdcs_current_org()));
CREATE POLICY units_delete ON units FOR DELETE USING (organization_id = (SELECT sdcs_current_org()));
GRANT SELECT, INSERT, UPDATE, DELETE ON units TO sdcs_app;

-- The catalog. Ids are derived from the symbol, so they are the same on every installation.
INSERT INTO units (id, organization_id, symbol, name, dimension, factor_to_base)
SELECT md5('sdcs-unit:' || symbol)::uuid, NULL, symbol, name, dimension, factor
FROM (VALUES
  -- mass, base kg
  ('mg', 'milligram', 'mass', 0.000001),
  ('g', 'gram', 'mass', 0.001),
  ('kg', 'kilogram', 'mass', 1),
  ('t', 'tonne', 'mass', 1000),
  ('lb', 'pound', 'mass', 0.45359237),
  ('oz', 'ounce', 'mass', 0.028349523125),
  ('short_ton', 'short ton (US)', 'mass', 907.18474),
  -- energy, base kWh
  ('Wh', 'watt-hour', 'energy', 0.001),
  ('kWh', 'kilowatt-hour', 'energy', 1),
  ('MWh', 'megawatt-hour', 'energy', 1000),
  ('GWh', 'gigawatt-hour', 'energy', 1000000),
  ('J', 'joule', 'energy', 1.0 / 3600000),
  ('kJ', 'kilojoule', 'energy', 1.0 / 3600),
  ('MJ', 'megajoule', 'energy', 1.0 / 3.6),
  ('GJ', 'gigajoule', 'energy', 1000.0 / 3.6),
  ('therm', 'therm', 'energy', 29.3071070172222),
  ('MMBtu', 'million British thermal units', 'energy', 293.071070172222),
  -- volume, base m3
  ('mL', 'millilitre', 'volume', 0.000001),
  ('L', 'litre', 'volume', 0.001),
  ('m3', 'cubic metre', 'volume', 1),
  ('gal_us', 'US gallon', 'volume', 0.003785411784),
  ('gal_uk', 'imperial gallon', 'volume', 0.00454609),
  ('bbl', 'barrel (oil)', 'volume', 0.158987294928),
  ('ft3', 'cubic foot', 'volume', 0.028316846592),
  -- distance, base km
  ('m', 'metre', 'distance', 0.001),
  ('km', 'kilometre', 'distance', 1),
  ('mi', 'mile', 'distance', 1.609344),
  ('nmi', 'nautical mile', 'distance', 1.852),
  -- area, base m2
  ('m2', 'square metre', 'area', 1),
  ('ha', 'hectare', 'area', 10000),
  ('km2', 'square kilometre', 'area', 1000000),
  ('ft2', 'square foot', 'area', 0.09290304),
  ('acre', 'acre', 'area', 4046.8564224),
  -- emissions, base kgCO2e
  ('gCO2e', 'gram CO2 equivalent', 'emissions', 0.001),
  ('kgCO2e', 'kilogram CO2 equivalent', 'emissions', 1),
  ('tCO2e', 'tonne CO2 equivalent', 'emissions', 1000),
  ('ktCO2e', 'kilotonne CO2 equivalent', 'emissions', 1000000),
  -- transport work
  ('pkm', 'passenger-kilometre', 'passenger_distance', 1),
  ('tkm', 'tonne-kilometre', 'freight_distance', 1),
  -- count and ratio
  ('count', 'count', 'count', 1),
  ('%', 'percent', 'ratio', 0.01),
  ('ratio', 'ratio (fraction)', 'ratio', 1),
  -- time, base h
  ('h', 'hour', 'time', 1),
  ('d', 'day', 'time', 24),
  -- currencies: each its own dimension, since exchange rates are not constants
  ('EUR', 'euro', 'currency_EUR', 1),
  ('USD', 'US dollar', 'currency_USD', 1),
  ('GBP', 'pound sterling', 'currency_GBP', 1),
  ('CHF', 'Swiss franc', 'currency_CHF', 1),
  ('SEK', 'Swedish krona', 'currency_SEK', 1),
  ('kEUR', 'thousand euro', 'currency_EUR', 1000),
  ('kUSD', 'thousand US dollars', 'currency_USD', 1000)
) AS catalog (symbol, name, dimension, factor);
