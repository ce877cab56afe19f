// The custom form's contract (issue 51), shared by the app, its frame and the service's syntax
// check (src/modules/activity-definitions/activity-definitions.ui-code.ts says the same header):
// the definition's uiCode is the body of this function; it returns the tree to show.
export const UI_CODE_HEADER = 'function component({ h, inputs, values, set, units, locale, t }) {';
