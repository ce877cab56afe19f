// Facts from the IPCC tables the built-in factor library carries, typed from the tables named
// beside each group. generate.mjs turns them into the library's migration; the datasets' tests
// check the figures that matter most (the R-410A blend, the natural-gas factors) against these
// tables by hand.

/** IPCC AR6 WG1 (2021), Chapter 7, Table 7.SM.7: 100-year global warming potentials. */
export const AR6 = {
  source: 'IPCC AR6 WG1 (2021), Chapter 7 Supplementary Material, Table 7.SM.7 (GWP-100)',
  link: 'https://www.ipcc.ch/report/ar6/wg1/chapter/chapter-7/',
  year: 2021,
  gwp: {
    CO2: 1,
    CH4_fossil: 29.8,
    CH4_non_fossil: 27.0,
    N2O: 273,
    'HFC-23': 14600,
    'HFC-32': 771,
    'HFC-125': 3740,
    'HFC-134a': 1530,
    'HFC-143a': 5810,
    'HFC-152a': 164,
    'HFC-227ea': 3600,
    SF6: 25200,
    NF3: 17400,
    CF4: 7380,
    C2F6: 12400,
  },
};

/**
 * IPCC AR5 WG1 (2013), Chapter 8, Table 8.A.1: 100-year GWPs without climate-carbon feedbacks.
 * AR5 gives one methane figure (28) and a higher one for fossil methane (30).
 */
export const AR5 = {
  source: 'IPCC AR5 WG1 (2013), Chapter 8, Appendix 8.A, Table 8.A.1 (GWP-100, no climate-carbon feedbacks)',
  link: 'https://www.ipcc.ch/report/ar5/wg1/',
  year: 2013,
  gwp: {
    CO2: 1,
    CH4_fossil: 30,
    CH4_non_fossil: 28,
    N2O: 265,
    'HFC-23': 12400,
    'HFC-32': 677,
    'HFC-125': 3170,
    'HFC-134a': 1300,
    'HFC-143a': 4800,
    'HFC-152a': 138,
    'HFC-227ea': 3350,
    SF6: 23500,
    NF3: 16100,
    CF4: 6630,
    C2F6: 11100,
  },
};

/** Names of the gases, for the items' labels. */
export const GAS_NAMES = {
  CO2: 'Carbon dioxide (CO2)',
  CH4_fossil: 'Methane, fossil origin (CH4)',
  CH4_non_fossil: 'Methane, non-fossil origin (CH4)',
  N2O: 'Nitrous oxide (N2O)',
  'HFC-23': 'HFC-23 (R-23)',
  'HFC-32': 'HFC-32 (R-32)',
  'HFC-125': 'HFC-125 (R-125)',
  'HFC-134a': 'HFC-134a (R-134a)',
  'HFC-143a': 'HFC-143a (R-143a)',
  'HFC-152a': 'HFC-152a (R-152a)',
  'HFC-227ea': 'HFC-227ea (R-227ea)',
  SF6: 'Sulphur hexafluoride (SF6)',
  NF3: 'Nitrogen trifluoride (NF3)',
  CF4: 'PFC-14 (CF4)',
  C2F6: 'PFC-116 (C2F6)',
};

/**
 * Refrigerant blends by mass fraction of their components (ASHRAE Standard 34 compositions).
 * A blend's GWP is the mass-weighted sum of its components' GWPs.
 */
export const BLENDS = {
  'R-404A': { 'HFC-125': 0.44, 'HFC-143a': 0.52, 'HFC-134a': 0.04 },
  'R-407C': { 'HFC-32': 0.23, 'HFC-125': 0.25, 'HFC-134a': 0.52 },
  'R-410A': { 'HFC-32': 0.5, 'HFC-125': 0.5 },
};

/**
 * IPCC 2006 Guidelines, Volume 2 (Energy): default emission factors for stationary combustion in
 * manufacturing industries and construction (Chapter 2, Table 2.3; the CO2 factors are those of
 * Chapter 1, Table 1.4) and net calorific values (Chapter 1, Table 1.2). Factors in kg per TJ of
 * net calorific value; NCVs in TJ per Gg (= GJ per tonne).
 */
export const COMBUSTION = {
  source:
    'IPCC 2006 Guidelines for National Greenhouse Gas Inventories, Vol. 2 Energy: Ch. 2 Table 2.3 (stationary combustion, manufacturing industries and construction; CO2 as Ch. 1 Table 1.4) and Ch. 1 Table 1.2 (net calorific values)',
  link: 'https://www.ipcc-nggip.iges.or.jp/public/2006gl/vol2.html',
  year: 2006,
  fuels: {
    natural_gas: { name: 'Natural gas', co2: 56100, ch4: 1, n2o: 0.1, ncv: 48.0 },
    gas_diesel_oil: { name: 'Gas/diesel oil', co2: 74100, ch4: 3, n2o: 0.6, ncv: 43.0 },
    lpg: { name: 'Liquefied petroleum gases (LPG)', co2: 63100, ch4: 1, n2o: 0.1, ncv: 47.3 },
    residual_fuel_oil: { name: 'Residual fuel oil', co2: 77400, ch4: 3, n2o: 0.6, ncv: 40.4 },
    other_bituminous_coal: { name: 'Other bituminous coal', co2: 94600, ch4: 10, n2o: 1.5, ncv: 25.8 },
  },
};
