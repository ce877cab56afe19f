#!/usr/bin/env node
// Writes the migration that loads one version of the built-in factor library (issue 44):
//   node scripts/factor-library/generate.mjs > src/db/migrations/0058_factor_library.sql
// Grid figures come from the @tgwf/co2 package (a devDependency, pinned), their years from
// ember-years.json beside this file, country codes from i18n-iso-countries, and the IPCC
// figures from ipcc.mjs. Nothing is downloaded. A later version of the library is a new
// migration with new dataset ids (a new slug), so that indicators pinned to the old datasets
// keep their figures; the old datasets are then marked superseded, never changed.
import { readFileSync } from 'node:fs';
import { averageIntensity } from '@tgwf/co2';
import countries from 'i18n-iso-countries';
import { AR5, AR6, BLENDS, COMBUSTION, GAS_NAMES } from './ipcc.mjs';

const CO2JS_VERSION = JSON.parse(
  readFileSync(new URL('../../node_modules/@tgwf/co2/package.json', import.meta.url), 'utf8'),
).version;
const years = JSON.parse(readFileSync(new URL('./ember-years.json', import.meta.url), 'utf8'));
if (years.packageVersion !== CO2JS_VERSION)
  throw new Error(`ember-years.json is for @tgwf/co2 ${years.packageVersion}, installed: ${CO2JS_VERSION}`);

const q = (s) => (s === null || s === undefined ? 'NULL' : `'${String(s).replaceAll("'", "''")}'`);
const num = (n) => {
  if (!Number.isFinite(n)) throw new Error(`not a number: ${n}`);
  return String(n);
};
const json = (o) => `${q(JSON.stringify(o))}::jsonb`;
const datasetId = (slug) => `md5(${q(`sdcs-library:${slug}`)})::uuid`;
const itemId = (slug, key, year) => `md5(${q(`sdcs-library:${slug}:${key}:${year}`)})::uuid`;
const unitId = (symbol) => (symbol === null ? 'NULL' : `md5(${q(`sdcs-unit:${symbol}`)})::uuid`);

const datasets = [];

/** One dataset of the library and its items; `version`, `licence` and `source` go on every item too. */
function dataset(d) {
  datasets.push(d);
  return d;
}

// Location-based grid electricity (Ember yearly data, latest year per country, via CO2.js).
{
  const licence = 'CC BY-SA 4.0';
  const version = `Ember yearly data as shipped in CO2.js ${CO2JS_VERSION}`;
  const source = `Ember, yearly electricity data (average CO2e intensity of generation), republished in @tgwf/co2 ${CO2JS_VERSION} by the Green Web Foundation`;
  const items = [];
  for (const [alpha3, value] of Object.entries(averageIntensity.data)) {
    const alpha2 = countries.alpha3ToAlpha2(alpha3);
    const world = alpha3 === 'WORLD' || alpha3 === 'EU';
    if (!alpha2 && !world) continue; // regions and groups (ASIA, G20, …) other than the world and the EU
    const year = years.years[alpha3];
    if (!Number.isInteger(year)) throw new Error(`no Ember year for ${alpha3}`);
    const name = world ? (alpha3 === 'EU' ? 'European Union' : 'World') : countries.getName(alpha3, 'en');
    const metadata = { country: alpha2 ?? alpha3, countryAlpha3: alpha3, emberYear: year, source, licence, version };
    for (const key of alpha2 ? [`grid_${alpha2}`, `grid_${alpha3}`] : [`grid_${alpha3}`])
      items.push({
        key,
        name: `Grid electricity, ${name} (${year})`,
        value,
        unit: 'gCO2e',
        inputUnit: 'kWh',
        year,
        description: `Location-based: average CO2e emitted per kWh generated in ${name} in ${year} (Ember).`,
        metadata,
        tags: ['electricity', 'location-based', 'scope-2'],
      });
  }
  dataset({
    slug: `grid-ember-co2js-${CO2JS_VERSION}`,
    name: 'Grid electricity, location-based (Ember)',
    description:
      'Average CO2e intensity of electricity generation by country, latest year Ember publishes for each. Keys grid_<ISO 3166 alpha-2> and grid_<alpha-3> (grid_DE, grid_DEU), so grid_{site.metadata.country} works with either code. Attribution: Ember (ember-climate.org), via CO2.js (thegreenwebfoundation.org).',
    dataSource: source,
    version,
    licence,
    link: 'https://ember-climate.org/data/data-explorer/',
    items,
  });
}

// GWP-100 tables, one dataset per assessment report, the same keys in both.
for (const [report, t] of [
  ['AR6', AR6],
  ['AR5', AR5],
]) {
  const licence = 'Figures published by the IPCC, cited by table';
  const version = `${report} (${t.year})`;
  const items = Object.entries(t.gwp).map(([gas, value]) => ({
    key: `gwp_${gas}`,
    name: `GWP-100 ${GAS_NAMES[gas]}, ${report}`,
    value,
    unit: 'kgCO2e',
    inputUnit: 'kg',
    year: t.year,
    description: `kg CO2e per kg of ${GAS_NAMES[gas]} emitted, over 100 years (${report}).`,
    metadata: { gas, source: t.source, licence, version },
    tags: ['gwp', report.toLowerCase()],
  }));
  for (const [blend, parts] of Object.entries(BLENDS)) {
    const value = Object.entries(parts).reduce((sum, [gas, share]) => sum + share * t.gwp[gas], 0);
    const shares = Object.entries(parts)
      .map(([gas, share]) => `${share * 100} % ${gas}`)
      .join(' + ');
    items.push({
      key: `gwp_${blend}`,
      name: `GWP-100 ${blend}, ${report}`,
      value: Math.round(value * 1e6) / 1e6,
      unit: 'kgCO2e',
      inputUnit: 'kg',
      year: t.year,
      description: `Refrigerant blend ${shares} by mass: the mass-weighted sum of its components' ${report} GWP-100.`,
      metadata: { gas: blend, components: parts, source: t.source, licence, version },
      tags: ['gwp', report.toLowerCase(), 'refrigerant'],
    });
  }
  dataset({
    slug: `gwp100-ipcc-${report.toLowerCase()}`,
    name: `GWP-100, IPCC ${report}`,
    description: `100-year global warming potentials of the IPCC ${report}, in kg CO2e per kg of gas; refrigerant blends computed from their components' mass fractions. Keys gwp_<gas> (gwp_CH4_fossil, gwp_HFC-134a, gwp_R-410A).`,
    dataSource: t.source,
    version,
    licence,
    link: t.link,
    items,
  });
}

// Stationary combustion defaults (IPCC 2006, Vol. 2).
{
  const t = COMBUSTION;
  const licence = 'Figures published by the IPCC, cited by table';
  const version = '2006 Guidelines';
  const items = [];
  for (const [fuel, f] of Object.entries(t.fuels)) {
    const metadata = { fuel, source: t.source, licence, version };
    const common = { year: t.year, tags: ['stationary-combustion', 'scope-1'] };
    items.push(
      {
        ...common,
        key: `${fuel}_co2`,
        name: `${f.name}: CO2 per TJ`,
        value: f.co2,
        unit: 'kgCO2e',
        inputUnit: 'TJ',
        description: `kg CO2 emitted per TJ (net calorific value) of ${f.name.toLowerCase()} burnt.`,
        metadata: { ...metadata, gas: 'CO2', table: 'Vol. 2 Ch. 2 Table 2.3 (CO2: Ch. 1 Table 1.4)' },
      },
      {
        ...common,
        key: `${fuel}_ch4`,
        name: `${f.name}: CH4 per TJ`,
        value: f.ch4,
        unit: 'kg',
        inputUnit: 'TJ',
        description: `kg of CH4 (not CO2e: multiply by a GWP) per TJ of ${f.name.toLowerCase()} burnt.`,
        metadata: { ...metadata, gas: 'CH4', table: 'Vol. 2 Ch. 2 Table 2.3' },
      },
      {
        ...common,
        key: `${fuel}_n2o`,
        name: `${f.name}: N2O per TJ`,
        value: f.n2o,
        unit: 'kg',
        inputUnit: 'TJ',
        description: `kg of N2O (not CO2e: multiply by a GWP) per TJ of ${f.name.toLowerCase()} burnt.`,
        metadata: { ...metadata, gas: 'N2O', table: 'Vol. 2 Ch. 2 Table 2.3' },
      },
      {
        ...common,
        key: `${fuel}_ncv`,
        name: `${f.name}: net calorific value`,
        value: f.ncv,
        unit: 'GJ',
        inputUnit: 't',
        description: `GJ per tonne of ${f.name.toLowerCase()} (TJ per Gg).`,
        metadata: { ...metadata, table: 'Vol. 2 Ch. 1 Table 1.2' },
      },
    );
  }
  dataset({
    slug: 'combustion-ipcc-2006',
    name: 'Stationary combustion, IPCC 2006 defaults',
    description:
      'Default CO2, CH4 and N2O factors per TJ of fuel (net calorific value) for stationary combustion in manufacturing industries and construction, and net calorific values per tonne. Keys <fuel>_co2, <fuel>_ch4, <fuel>_n2o, <fuel>_ncv for natural_gas, gas_diesel_oil, lpg, residual_fuel_oil, other_bituminous_coal.',
    dataSource: t.source,
    version,
    licence,
    link: t.link,
    items,
  });
}

const out = [
  '-- The built-in factor library, version 1 (issue 44). GENERATED by',
  '-- scripts/factor-library/generate.mjs: do not edit; a new version is a new migration.',
  '-- Datasets of no organization, common and read-only; ids derived from each dataset slug.',
  '',
];
for (const d of datasets) {
  out.push(
    `-- ${d.name} (${d.items.length} items)`,
    'INSERT INTO datasets (id, organization_id, name, description, data_source, version, licence, link, is_common)',
    `VALUES (${datasetId(d.slug)}, NULL, ${q(d.name)}, ${q(d.description)}, ${q(d.dataSource)}, ${q(d.version)}, ${q(d.licence)}, ${q(d.link)}, true);`,
    'INSERT INTO dataset_items (id, organization_id, dataset_id, name, key, value, unit, year, description, link, metadata, tags, input_unit_id) VALUES',
    `${d.items
      .map(
        (i) =>
          `  (${itemId(d.slug, i.key, i.year)}, NULL, ${datasetId(d.slug)}, ${q(i.name)}, ${q(i.key)}, ${num(i.value)}, ${q(i.unit)}, ${i.year}, ${q(i.description)}, ${q(d.link)}, ${json(i.metadata)}, ARRAY[${i.tags.map(q).join(', ')}]::text[], ${unitId(i.inputUnit)})`,
      )
      .join(',\n')};`,
    '',
  );
}
process.stdout.write(`${out.join('\n')}`);
