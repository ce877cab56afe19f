import { randomBytes } from 'node:crypto';
import type { TestContext } from './app.ts';
import { api } from './app.ts';
import {
  activateForm,
  assignSites,
  createActivityDefinition,
  createDataset,
  createDatasetItem,
  createForm,
  createSite,
  createTenant,
  type Member,
  type Tenant,
} from './factories.ts';

/**
 * Builders: `build<Thing>(t, overrides)` stores one thing and whatever it needs that the overrides
 * do not give, within one organization (the tenant of the first parent given, else a new one).
 * Everything they answer carries its `tenant`, so a child can be built from its parent alone:
 * `buildActivity(t, {})` makes an organization, a site, a definition and a form first.
 */

const unique = () => randomBytes(4).toString('hex');

export type MemberRole = 'owner' | 'manager' | 'collector' | 'viewer';

/** The tenant of the first parent given, else a new organization (one member of each role). */
async function tenantOf(t: TestContext, ...parents: ({ tenant: Tenant } | Tenant | undefined)[]) {
  for (const parent of parents) {
    if (parent) return 'tenant' in parent ? parent.tenant : parent;
  }
  return createTenant(t);
}

/** An organization with one member of each role; the owner also has an API key. */
export function buildTenant(t: TestContext, overrides: { name?: string } = {}): Promise<Tenant> {
  return createTenant(t, overrides.name);
}

export interface BuiltSite {
  id: string;
  name: string;
  tenant: Tenant;
}

export interface SiteOverrides {
  tenant?: Tenant;
  name?: string;
  /** The parent site (its tenant is the site's). */
  parent?: BuiltSite;
  code?: string | null;
  metadata?: Record<string, unknown>;
  /** Members assigned to the site. */
  assign?: MemberRole[];
}

/** A site, stored directly; members named in `assign` are assigned to it. */
export async function buildSite(t: TestContext, overrides: SiteOverrides = {}): Promise<BuiltSite> {
  const tenant = await tenantOf(t, overrides.tenant, overrides.parent);
  const name = overrides.name ?? `Site ${unique()}`;
  const id = await createSite(t, tenant.organizationId, {
    name,
    parentId: overrides.parent?.id ?? null,
    code: overrides.code ?? null,
    metadata: overrides.metadata ?? {},
  });
  for (const role of overrides.assign ?? []) {
    await assignSites(t, tenant.organizationId, memberOf(tenant, role).userId, [id]);
  }
  return { id, name, tenant };
}

/** The tenant's member of a role. */
export function memberOf(tenant: Tenant, role: MemberRole): Member {
  return tenant[role];
}

export interface BuiltDefinition {
  id: string;
  key: string;
  tenant: Tenant;
}

export type DefinitionOverrides = Parameters<typeof createActivityDefinition>[2] & { tenant?: Tenant };

/**
 * An activity definition, stored directly without the API's syntax check. By default one required
 * number input `amount` and `return inputs.amount * 2`.
 */
export async function buildActivityDefinition(
  t: TestContext,
  overrides: DefinitionOverrides = {},
): Promise<BuiltDefinition> {
  const { tenant: given, ...fields } = overrides;
  const tenant = await tenantOf(t, given);
  const key = fields.key ?? `activity-${unique()}`;
  const id = await createActivityDefinition(t, tenant.organizationId, { ...fields, key });
  return { id, key, tenant };
}

export type BuiltForm = Awaited<ReturnType<typeof createForm>> & { tenant: Tenant };

export interface FormOverrides {
  tenant?: Tenant;
  name?: string;
  periodType?: string;
  metadata?: Record<string, unknown>;
  /** By default one NUMBER element `amount`. */
  elements?: unknown[];
}

/** A form, created through the API as the owner. */
export async function buildForm(t: TestContext, overrides: FormOverrides = {}): Promise<BuiltForm> {
  const { tenant: given, ...body } = overrides;
  const tenant = await tenantOf(t, given);
  return { ...(await createForm(t, tenant, body)), tenant };
}

/**
 * A form active on sites for years (PUT /form-sites as the owner: the form's sites for those years
 * become exactly these). Builds the form (default elements) and one site when not given.
 */
export async function buildFormSites(
  t: TestContext,
  overrides: { form?: BuiltForm; sites?: (BuiltSite | string)[]; years?: number[]; tenant?: Tenant } = {},
): Promise<{ form: BuiltForm; siteIds: string[]; years: number[] }> {
  const tenant = await tenantOf(t, overrides.tenant, overrides.form, ...siteParents(overrides.sites));
  const form = overrides.form ?? (await buildForm(t, { tenant }));
  const sites = overrides.sites ?? [await buildSite(t, { tenant })];
  const siteIds = sites.map((s) => (typeof s === 'string' ? s : s.id));
  const years = overrides.years ?? [2025];
  await activateForm(t, tenant, form.id, siteIds, years);
  return { form, siteIds, years };
}

function siteParents(sites: (BuiltSite | string)[] | undefined): BuiltSite[] {
  return (sites ?? []).filter((s): s is BuiltSite => typeof s !== 'string');
}

export interface ActivityFormOverrides {
  tenant?: Tenant;
  /** The definition of the ACTIVITY element, or what to build it with. */
  definition?: BuiltDefinition | DefinitionOverrides;
  /** The element's key (by default the definition's key). */
  key?: string;
  periodType?: string;
  /** Elements after the ACTIVITY one. */
  moreElements?: unknown[];
  /** Sites the form is active on (none when empty; by default one new site). */
  sites?: (BuiltSite | string)[];
  years?: number[];
}

export interface BuiltActivityForm {
  tenant: Tenant;
  definition: BuiltDefinition;
  form: BuiltForm;
  /** The ACTIVITY element's key. */
  key: string;
  siteIds: string[];
}

/** A form with one ACTIVITY element (and `moreElements`), active on sites for years. */
export async function buildActivityForm(
  t: TestContext,
  overrides: ActivityFormOverrides = {},
): Promise<BuiltActivityForm> {
  const given = overrides.definition && 'id' in overrides.definition ? overrides.definition : undefined;
  const tenant = await tenantOf(t, overrides.tenant, given, ...siteParents(overrides.sites));
  const definition =
    given ?? (await buildActivityDefinition(t, { ...(overrides.definition as DefinitionOverrides), tenant }));
  const key = overrides.key ?? definition.key;
  const form = await buildForm(t, {
    tenant,
    periodType: overrides.periodType ?? 'MONTHLY',
    elements: [
      { key, label: key, type: 'ACTIVITY', activityDefinitionId: definition.id },
      ...(overrides.moreElements ?? []),
    ],
  });
  const sites = overrides.sites ?? [await buildSite(t, { tenant })];
  const { siteIds } =
    sites.length === 0
      ? { siteIds: [] }
      : await buildFormSites(t, { tenant, form, sites, years: overrides.years ?? [2025] });
  return { tenant, definition, form, key, siteIds };
}

/** POST /form-submissions as the owner (by default); throws unless it answers 200. */
export async function buildSubmission(
  t: TestContext,
  overrides: {
    form?: BuiltForm;
    site?: BuiltSite | string;
    year?: number;
    values?: unknown[];
    token?: string;
  } = {},
) {
  const site = typeof overrides.site === 'string' ? undefined : overrides.site;
  const tenant = await tenantOf(t, overrides.form, site);
  let form = overrides.form;
  let siteId = typeof overrides.site === 'string' ? overrides.site : overrides.site?.id;
  const year = overrides.year ?? 2025;
  if (!form || !siteId) {
    const built = await buildFormSites(t, {
      tenant,
      ...(form ? { form } : {}),
      ...(overrides.site ? { sites: [overrides.site] } : {}),
      years: [year],
    });
    form = built.form;
    siteId = built.siteIds[0]!;
  }
  const res = await api(t, 'POST', '/form-submissions', {
    token: overrides.token ?? tenant.owner.token,
    body: {
      formId: form.id,
      siteId,
      year,
      values: overrides.values ?? [{ elementKey: form.elements[0]!.key, periodUnit: 1, value: 1 }],
    },
  });
  if (res.status !== 200) throw new Error(`not submitted: ${JSON.stringify(res.body)}`);
  return { tenant, form, siteId, year, submission: res.body };
}

export interface ActivityOverrides {
  tenant?: Tenant;
  site?: BuiltSite | string;
  /** A form with an ACTIVITY element, from buildActivityForm. */
  activityForm?: BuiltActivityForm;
  definition?: BuiltDefinition | DefinitionOverrides;
  /** The activity's input (by default `{ amount: 1 }`, the default definition's input). */
  input?: Record<string, unknown>;
  year?: number;
  periodUnit?: number;
  token?: string;
}

/**
 * One activity entered through the API (as the owner by default), with whatever it needs: an
 * organization, a site, a definition and a monthly form active on the site for the year.
 */
export async function buildActivity(t: TestContext, overrides: ActivityOverrides = {}) {
  const site = typeof overrides.site === 'string' ? undefined : overrides.site;
  const given = overrides.definition && 'id' in overrides.definition ? overrides.definition : undefined;
  const tenant = await tenantOf(t, overrides.tenant, overrides.activityForm, site, given);
  const year = overrides.year ?? 2025;
  const siteRef = overrides.site ?? (await buildSite(t, { tenant }));
  const activityForm =
    overrides.activityForm ??
    (await buildActivityForm(t, {
      tenant,
      ...(overrides.definition ? { definition: overrides.definition } : {}),
      sites: [siteRef],
      years: [year],
    }));
  const { submission, siteId } = await buildSubmission(t, {
    form: activityForm.form,
    site: siteRef,
    year,
    values: [
      {
        elementKey: activityForm.key,
        periodUnit: overrides.periodUnit ?? 1,
        value: [overrides.input ?? { amount: 1 }],
      },
    ],
    ...(overrides.token ? { token: overrides.token } : {}),
  });
  const value = submission.values[0];
  return {
    ...activityForm,
    siteId,
    year,
    /** The value (form element submission) holding the activity. */
    value,
    activityId: value.activities[0].activityId as string,
  };
}

export interface BuiltDataset {
  id: string;
  tenant: Tenant;
  /** The ids of the items built with it, in order. */
  items: string[];
}

export type ItemOverrides = Partial<Parameters<typeof createDatasetItem>[3]>;

/** A coefficient dataset, stored directly, with the items given. */
export async function buildDataset(
  t: TestContext,
  overrides: { tenant?: Tenant; name?: string; isCommon?: boolean; items?: ItemOverrides[] } = {},
): Promise<BuiltDataset> {
  const tenant = await tenantOf(t, overrides.tenant);
  const id = await createDataset(t, tenant.organizationId, {
    ...(overrides.name ? { name: overrides.name } : {}),
    ...(overrides.isCommon !== undefined ? { isCommon: overrides.isCommon } : {}),
  });
  const dataset: BuiltDataset = { id, tenant, items: [] };
  for (const item of overrides.items ?? [])
    dataset.items.push((await buildDatasetItem(t, { dataset, ...item })).id);
  return dataset;
}

/** A coefficient (dataset item), stored directly; builds its dataset when not given. */
export async function buildDatasetItem(
  t: TestContext,
  overrides: ItemOverrides & { dataset?: BuiltDataset; tenant?: Tenant } = {},
): Promise<{ id: string; dataset: BuiltDataset }> {
  const { dataset: given, tenant, ...fields } = overrides;
  const dataset = given ?? (await buildDataset(t, tenant ? { tenant } : {}));
  const id = await createDatasetItem(t, dataset.tenant.organizationId, dataset.id, {
    key: fields.key ?? `item-${unique()}`,
    value: fields.value ?? 1,
    year: fields.year ?? 2025,
    ...fields,
  });
  return { id, dataset };
}

/** The catalog's unit ids by symbol (`kWh`, `MWh`, …). */
export async function catalogUnits(t: TestContext): Promise<Record<string, string>> {
  const rows = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  return Object.fromEntries(rows.map((r) => [r.symbol, r.id]));
}
