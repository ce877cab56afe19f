import { policy } from '../access/index.ts';
import { type ActivityInput, checkActivityInput, datesOutsidePeriod } from '../activities/index.ts';
import type { ActivityDefinition } from '../activity-definitions/index.ts';
import type { Checked, ElementInfo, PlannedValue } from '../values/index.ts';
import { checkValue } from '../values/index.ts';
import type { SheetMapping } from './adapters.schemas.ts';
import type { Catalog, FormInfo, ImportSiteInfo } from './imports.catalog.ts';
import {
  fail,
  isEmpty,
  mappedColumns,
  numberOf,
  RowFailure,
  resolvePeriod,
  show,
  textOf,
  valueFor,
} from './imports.cells.ts';
import type { RowIssue, SheetRow } from './imports.schemas.ts';

/** A row turned into a candidate draft (before calculation and reduction). */
export interface Candidate {
  sheet: string;
  rowIndex: number;
  kind: 'form_value' | 'activity';
  form: FormInfo;
  site: ImportSiteInfo;
  year: number;
  periodUnit: number;
  element: ElementInfo;
  /** form_value: the checked value (converted into the element's unit) and the unit sent. */
  checked?: Checked;
  selectedUnitId?: string | null;
  sentValue?: unknown;
  reduce: 'sum' | 'last';
  /** activity: the input object and its definition. */
  input?: ActivityInput;
  definition?: ActivityDefinition;
}

const unknownElement = (key: string, column?: string): never =>
  fail(`The form has no element ${show(key)}`, column, 'import.elementUnknown', { element: key });

function resolveSite(m: SheetMapping, row: SheetRow, catalog: Catalog): ImportSiteInfo {
  if (!m.site) {
    const id = catalog.context.siteId?.toLowerCase();
    if (!id)
      return fail(
        'No site: the mapping has no site column and the request no context.siteId',
        undefined,
        'import.siteMissing',
      );
    return (
      catalog.sitesById.get(id) ??
      fail('context.siteId is not a site of this organization', undefined, 'import.siteUnknown')
    );
  }
  const { column, match } = m.site;
  const cell = row[column];
  if (isEmpty(cell)) return fail('The site cell is empty', column, 'import.cellEmpty', { cell: 'site' });
  const text = textOf(cell);
  const found = siteIndex(catalog, match).get(match === 'id' ? text.toLowerCase() : text) ?? [];
  const params = { match, text };
  if (found.length === 0)
    return fail(`No site has ${match} ${show(text)}`, column, 'import.siteNotFound', params);
  if (found.length > 1)
    return fail(`More than one site has ${match} ${show(text)}`, column, 'import.siteAmbiguous', params);
  return found[0]!;
}

/** Sites by the text a mapping matches on (`id`, `code`, `name` or `metadata.<key>`), built once. */
function siteIndex(catalog: Catalog, match: string): Map<string, ImportSiteInfo[]> {
  let index = catalog.siteIndexes.get(match);
  if (index) return index;
  index = new Map();
  const key = match.startsWith('metadata.') ? match.slice('metadata.'.length) : undefined;
  for (const site of catalog.sites) {
    const text =
      match === 'id'
        ? site.id
        : match === 'code'
          ? site.code
          : match === 'name'
            ? site.name
            : metadataText(site.metadata[key!]);
    if (text === undefined || text === null) continue;
    const list = index.get(text);
    if (list) list.push(site);
    else index.set(text, [site]);
  }
  catalog.siteIndexes.set(match, index);
  return index;
}

function metadataText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function resolveFormValue(
  m: SheetMapping,
  row: SheetRow,
  catalog: Catalog,
  base: Omit<Candidate, 'element' | 'kind' | 'reduce'>,
): Candidate {
  const form = base.form;
  const el = m.element!;
  let element: ElementInfo | undefined;
  if ('key' in el) {
    element = form.elements.get(el.key) ?? unknownElement(el.key);
  } else {
    const cell = row[el.column];
    if (isEmpty(cell)) fail('The element cell is empty', el.column, 'import.cellEmpty', { cell: 'element' });
    element = form.elements.get(textOf(cell)) ?? unknownElement(textOf(cell), el.column);
  }
  const elementColumn = 'column' in el ? el.column : undefined;
  const named = { element: element.key };
  if (element.type === 'ACTIVITY')
    fail(
      `${element.key} is an ACTIVITY element: map it as an activity sheet`,
      elementColumn,
      'import.elementIsActivity',
      named,
    );
  if (element.type === 'TIMESTAMP')
    fail(
      `${element.key} is a TIMESTAMP element, which imports do not fill`,
      elementColumn,
      'import.elementIsTimestamp',
      named,
    );
  const valueColumn = m.value!.column;
  const cell = row[valueColumn];
  if (isEmpty(cell)) fail('The value cell is empty', valueColumn, 'import.cellEmpty', { cell: 'value' });
  const value = valueFor(element, cell!, valueColumn);
  let selectedUnitId: string | null = null;
  if (m.unit && !isEmpty(row[m.unit.column])) {
    const symbol = textOf(row[m.unit.column]);
    const unit =
      catalog.unitsBySymbol.get(symbol) ??
      fail(`${show(symbol)} is not a known unit symbol`, m.unit.column, 'import.unitUnknown', { symbol });
    selectedUnitId = unit.id;
  }
  // The row's one check: the same as a submitted value's (period, unit, the type's check).
  const checked = checkValue(
    { elementKey: element.key, periodUnit: base.periodUnit, value, selectedUnitId },
    0,
    element,
    { year: base.year, periodType: form.period_type, units: catalog.units, handlers: catalog.handlers },
  );
  if ('message' in checked) {
    const column =
      checked.field === 'selectedUnitId'
        ? m.unit?.column
        : checked.field === 'value'
          ? valueColumn
          : undefined;
    // A rule's message is a whole sentence naming the element by its label.
    fail(
      checked.whole
        ? checked.message
        : `${element.key}: ${checked.field ? `${checked.field} ` : ''}${checked.message}`,
      column,
      // The value's own code (decision 225), as a submitted value's.
      checked.code,
      checked.params,
    );
  }
  // One literal, not a spread of `base`: the spread per row was most of the time of resolving
  // 10,000 rows (166 against 35 ms in a profile of three imports).
  return {
    sheet: base.sheet,
    rowIndex: base.rowIndex,
    kind: 'form_value',
    form,
    site: base.site,
    year: base.year,
    periodUnit: base.periodUnit,
    element,
    checked: (checked as PlannedValue).checked!,
    selectedUnitId,
    sentValue: value,
    reduce: m.reduce ?? 'last',
  };
}

function resolveActivity(
  m: SheetMapping,
  row: SheetRow,
  catalog: Catalog,
  base: Omit<Candidate, 'element' | 'kind' | 'reduce'>,
): Candidate {
  const key = m.activity!.key;
  const element = base.form.elements.get(key) ?? unknownElement(key);
  if (element.type !== 'ACTIVITY')
    fail(
      `${key} is a ${element.type} element, not an ACTIVITY element`,
      undefined,
      'import.elementNotActivity',
      {
        element: key,
        type: element.type,
      },
    );
  const definition =
    catalog.definitions.get(element.activity_definition_id ?? '') ??
    fail(`The activity definition of ${key} is no longer available`, undefined, 'import.definitionGone', {
      element: key,
    });
  const types = new Map(definition.inputs.map((i) => [i.name, i.type]));
  const input: ActivityInput = {};
  for (const [name, { column }] of Object.entries(m.inputs ?? {})) {
    const cell = row[column];
    if (isEmpty(cell)) continue;
    const type = types.get(name);
    if (type === 'number') input[name] = numberOf(cell, column, `The input ${name}`);
    else if (type === 'string' || type === 'date')
      input[name] = typeof cell === 'number' ? String(cell) : cell;
    else if (type === 'boolean' && typeof cell === 'string' && /^(true|false)$/i.test(cell.trim()))
      input[name] = cell.trim().toLowerCase() === 'true';
    else input[name] = cell;
  }
  const result = checkActivityInput(definition.inputs, input, 'inputs');
  if ('issues' in result) {
    const first = result.issues[0]!;
    const name = /^inputs\.([^ .]+)/.exec(first.path ?? '')?.[1];
    fail(first.message, name ? m.inputs?.[name]?.column : undefined, first.code, first.params);
  }
  const window = { year: base.year, periodType: base.form.period_type, periodUnit: base.periodUnit };
  const [outside] = datesOutsidePeriod(
    definition.inputs,
    (result as { input: ActivityInput }).input,
    window,
    'inputs',
    element.label,
  );
  if (outside) {
    const name = outside.path!.slice('inputs.'.length);
    fail(outside.message, m.inputs?.[name]?.column, outside.code, outside.params);
  }
  return {
    sheet: base.sheet,
    rowIndex: base.rowIndex,
    kind: 'activity',
    form: base.form,
    site: base.site,
    year: base.year,
    periodUnit: base.periodUnit,
    element,
    input: (result as { input: ActivityInput }).input,
    definition,
    reduce: 'last',
  };
}

/**
 * One row: skipped (every mapped cell empty), a candidate draft, or an issue. Checks the form,
 * site (and the caller's right to write there), year, period, element and value.
 */
export function resolveRow(
  sheetName: string,
  rowIndex: number,
  row: SheetRow,
  mappingIndex: number,
  m: SheetMapping,
  catalog: Catalog,
): Candidate | RowIssue | 'skip' {
  if (mappedColumns(m).every((c) => isEmpty(row[c]))) return 'skip';
  try {
    const form = catalog.forms[mappingIndex]!;
    if ('message' in form) return fail(form.message, undefined, form.code, form.params);
    const site = resolveSite(m, row, catalog);
    if (!policy.canWriteSiteData(catalog.caller, catalog.scope, site.id)) {
      fail(
        `You cannot enter data for site ${show(site.code ?? site.name)}`,
        m.site?.column,
        'site.outOfScope',
        {
          site: site.name,
        },
      );
    }
    const { year, periodUnit } = resolvePeriod(m, row, catalog, form);
    const base = { sheet: sheetName, rowIndex, form, site, year, periodUnit };
    return m.draft === 'form_value'
      ? resolveFormValue(m, row, catalog, base)
      : resolveActivity(m, row, catalog, base);
  } catch (error) {
    if (!(error instanceof RowFailure)) throw error;
    return {
      sheet: sheetName,
      rowIndex,
      ...(error.column ? { column: error.column } : {}),
      message: error.message,
      ...(error.code ? { code: error.code } : {}),
      ...(error.params ? { params: error.params } : {}),
    };
  }
}
