// The part of @tgwf/co2 (a devDependency: the source of the factor library's grid figures) that
// the tests and scripts/factor-library read: Ember's average intensity per country, gCO2e/kWh.
declare module '@tgwf/co2' {
  export const averageIntensity: { data: Record<string, number>; type: 'average' };
}
