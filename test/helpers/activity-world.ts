import { type Client, client, type TestContext, type TypedResponse } from './app.ts';
import {
  type BuiltDefinition,
  type BuiltForm,
  buildActivityForm,
  buildSite,
  type DefinitionOverrides,
  type MemberRole,
  type SiteOverrides,
} from './builders.ts';
import type { Tenant } from './factories.ts';
import type { ResponseOf } from './responses.ts';

type Submitted = ResponseOf<'POST', '/form-submissions'>;
type Listed = ResponseOf<'GET', '/activities'>;
type ValueItem = Submitted['values'][number];
/** A value of an ACTIVITY element: its activities are always there. */
export type EnteredValue = ValueItem & { activities: NonNullable<ValueItem['activities']> };

export interface ActivityWorldOptions {
  tenant?: Tenant;
  /** The world's site (default: a new site, the collector and viewer assigned). */
  site?: Omit<SiteOverrides, 'tenant'>;
  /** More sites of the tenant (built from overrides, or ids) the form is active on too. */
  others?: (Omit<SiteOverrides, 'tenant'> | string)[];
  /** The ACTIVITY element's definition, or what to build it with. */
  definition?: BuiltDefinition | Omit<DefinitionOverrides, 'tenant'>;
  /** The element's key (by default the definition's key). */
  key?: string;
  periodType?: string;
  moreElements?: unknown[];
  years?: number[];
}

/**
 * The world of the activity tests: an organization, a site, an activity definition (by default one
 * required number `amount`, `return inputs.amount * 2`) and a form with an ACTIVITY element of it,
 * active on the site (and `others`) for 2025 (or `years`).
 */
export interface ActivityWorld {
  tenant: Tenant;
  site: string;
  /** The ids of `others`, in order. */
  others: string[];
  definition: BuiltDefinition;
  form: BuiltForm;
  /** The ACTIVITY element's key. */
  key: string;
  /** The API with typed answers. */
  api: Client;
  /** A value of the ACTIVITY element: `{ elementKey, periodUnit, value }`. */
  entry: (periodUnit: number, value: unknown) => { elementKey: string; periodUnit: number; value: unknown };
  /** POST /form-submissions of `values` for the form, the site and 2025 (as the collector by default). */
  submit: (
    values: unknown[],
    options?: { token?: string; siteId?: string; year?: number },
  ) => Promise<TypedResponse<Submitted>>;
  /** Enters the inputs as the ACTIVITY value of a period (as the owner); throws unless 200; answers the value. */
  enter: (
    periodUnit: number,
    inputs: Record<string, unknown>[],
    options?: { siteId?: string; year?: number },
  ) => Promise<EnteredValue>;
  /** GET /activities of the element, `query` appended (`&years=2025`), as the owner by default. */
  list: (query?: string, token?: string) => Promise<TypedResponse<Listed>>;
}

export async function createActivityWorld(
  t: TestContext,
  options: ActivityWorldOptions = {},
): Promise<ActivityWorld> {
  const site = await buildSite(t, {
    assign: ['collector', 'viewer'] as MemberRole[],
    ...options.site,
    ...(options.tenant ? { tenant: options.tenant } : {}),
  });
  const tenant = site.tenant;
  const others: string[] = [];
  for (const other of options.others ?? []) {
    others.push(typeof other === 'string' ? other : (await buildSite(t, { ...other, tenant })).id);
  }
  const built = await buildActivityForm(t, {
    tenant,
    definition: options.definition ?? {},
    ...(options.key ? { key: options.key } : {}),
    ...(options.periodType ? { periodType: options.periodType } : {}),
    ...(options.moreElements ? { moreElements: options.moreElements } : {}),
    sites: [site.id, ...others],
    years: options.years ?? [2025],
  });
  const http = client(t);
  const { form, key } = built;
  const submit: ActivityWorld['submit'] = (
    values,
    { token = tenant.collector.token, siteId = site.id, year = 2025 } = {},
  ) => http.post('/form-submissions', { token, body: { formId: form.id, siteId, year, values } });
  return {
    tenant,
    site: site.id,
    others,
    definition: built.definition,
    form,
    key,
    api: http,
    entry: (periodUnit, value) => ({ elementKey: key, periodUnit, value }),
    submit,
    enter: async (periodUnit, inputs, { siteId = site.id, year = 2025 } = {}) => {
      const res = await submit([{ elementKey: key, periodUnit, value: inputs }], {
        token: tenant.owner.token,
        siteId,
        year,
      });
      const value = res.json().values?.[0];
      if (res.status !== 200 || !value?.activities)
        throw new Error(`not entered: ${JSON.stringify(res.body)}`);
      return value as EnteredValue;
    },
    list: (query = '', token = tenant.owner.token) =>
      http.get(`/activities?formId=${form.id}&key=${key}${query}`, { token }),
  };
}
