import type { Tx } from '../../db/client.ts';
import type { PeriodType } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { badRequest, coded } from '../../domain/errors.ts';
import type { IssueCode, IssueParams } from '../../domain/issue-codes.ts';
import { isUuid } from '../../lib/ids.ts';
import { type SiteScope, siteScope } from '../access/index.ts';
import type { ActivityDefinition } from '../activity-definitions/index.ts';
import { getDefinitionForCalculation } from '../activity-definitions/index.ts';
import { forms as formsRepository } from '../forms/index.ts';
import type { UnitFactor } from '../units/index.ts';
import type { ElementInfo, ElementTypeHandlers, ValuesPipeline } from '../values/index.ts';
import type { Mapping } from './adapters.schemas.ts';
import { importsRepository as repo } from './imports.repository.ts';
import type { ImportBody } from './imports.schemas.ts';

export interface FormInfo {
  id: string;
  name: string;
  period_type: PeriodType;
  elements: Map<string, ElementInfo>;
}

export interface ImportSiteInfo {
  id: string;
  name: string;
  code: string | null;
  metadata: Record<string, unknown>;
}

/** Everything rows are resolved against, loaded once per import. */
/** Why a mapping entry has no form: said on each of its rows. */
export interface FormProblem {
  message: string;
  code: IssueCode;
  params: IssueParams;
}

export interface Catalog {
  caller: Caller;
  scope: SiteScope;
  context: { year?: number | undefined; siteId?: string | undefined };
  /** The form of each mapping entry (by its index), or why there is none. */
  /** Per mapping entry: its form, or why there is none (every row of the entry gets that issue). */
  forms: (FormInfo | FormProblem)[];
  sites: ImportSiteInfo[];
  sitesById: Map<string, ImportSiteInfo>;
  /** Sites by matched text, per match kind (filled on first use). */
  siteIndexes: Map<string, Map<string, ImportSiteInfo[]>>;
  unitsBySymbol: Map<string, { id: string }>;
  units: Map<string, UnitFactor>;
  definitions: Map<string, ActivityDefinition | undefined>;
  /** The element types' checks, as submissions use them. */
  handlers: ElementTypeHandlers;
}

/**
 * Everything an import's rows are resolved against (sites, units, the caller's scope, the mapped
 * forms and their elements, the activity definitions), read once per attempt, and the `basis`:
 * what a row's resolution depends on besides the row, compared between attempts.
 */
export async function loadCatalog(
  tx: Tx,
  caller: Caller,
  mapping: Mapping,
  body: ImportBody,
  pipeline: ValuesPipeline,
): Promise<{ catalog: Catalog; basis: unknown }> {
  const org = caller.organizationId;
  const [sites, units, scope] = await Promise.all([
    repo.sites(tx, org),
    repo.units(tx, org),
    siteScope(tx, caller),
  ]);
  const sitesById = new Map(sites.map((s) => [s.id, s as ImportSiteInfo]));
  const contextSite = body.context?.siteId;
  if (contextSite !== undefined && !(isUuid(contextSite) && sitesById.has(contextSite.toLowerCase()))) {
    const message = 'context.siteId is not a site of this organization';
    throw badRequest(message, [coded('import.siteUnknown', message, undefined, 'context.siteId')]);
  }
  // The organization's own unit wins over a catalog unit of the same symbol.
  const unitsBySymbol = new Map<string, { id: string }>();
  for (const u of [...units].sort(
    (a, b) => Number(a.organization_id !== null) - Number(b.organization_id !== null),
  ))
    unitsBySymbol.set(u.symbol, u);

  const byId = new Map(
    (
      await repo.formsById(
        tx,
        org,
        mapping.sheets.flatMap((s) => ('id' in s.form && isUuid(s.form.id) ? [s.form.id] : [])),
      )
    ).map((f) => [f.id, f]),
  );
  const formRows: ({ id: string; name: string; period_type: FormInfo['period_type'] } | FormProblem)[] = [];
  for (const s of mapping.sheets) {
    if ('id' in s.form) {
      const message = `The mapping’s form ${s.form.id} no longer exists`;
      formRows.push(
        byId.get(s.form.id.toLowerCase()) ?? {
          message,
          code: 'import.formGone',
          params: { form: s.form.id },
        },
      );
      continue;
    }
    const found = await repo.formsByMetadata(tx, org, s.form.metadataKey, s.form.metadataValue);
    const params = { key: s.form.metadataKey, value: s.form.metadataValue };
    formRows.push(
      found.length === 1
        ? found[0]!
        : {
            message: `${found.length === 0 ? 'No form' : 'More than one form'} has metadata ${s.form.metadataKey} = "${s.form.metadataValue}"`,
            code: found.length === 0 ? 'import.formNotFound' : 'import.formAmbiguous',
            params,
          },
    );
  }
  const formIds = [...new Set(formRows.flatMap((f) => ('message' in f ? [] : [f.id])))];
  const elements = await formsRepository.elements(tx, org, formIds);
  const forms = new Map<string, FormInfo>();
  for (const id of formIds) {
    const row = formRows.find((f) => !('message' in f) && f.id === id) as Exclude<
      (typeof formRows)[number],
      FormProblem
    >;
    forms.set(id, {
      id,
      name: row.name,
      period_type: row.period_type,
      elements: new Map(elements.filter((e) => e.form_id === id).map((e) => [e.key, e as ElementInfo])),
    });
  }
  const definitions = new Map<string, ActivityDefinition | undefined>();
  for (const e of elements) {
    const id = e.activity_definition_id;
    if (e.type === 'ACTIVITY' && id && !definitions.has(id))
      definitions.set(id, await getDefinitionForCalculation(tx, org, id));
  }
  const catalog: Catalog = {
    caller,
    scope,
    context: body.context ?? {},
    forms: formRows.map((f) => ('message' in f ? f : forms.get(f.id)!)),
    sites: sites as ImportSiteInfo[],
    sitesById,
    siteIndexes: new Map(),
    unitsBySymbol,
    units: new Map(units.map((u) => [u.id, u])),
    definitions,
    handlers: pipeline.handlers,
  };
  // Everything a row's resolution depends on besides the row (the mapping and body are the request's).
  return { catalog, basis: { sites, units, scope, formRows, elements, definitions } };
}
