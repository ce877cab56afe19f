import { randomBytes } from 'node:crypto';
import type { Role } from '../../src/db/schema/index.ts';
import { newAccessToken, sha256Hex } from '../../src/lib/secrets.ts';
import { createOrganizationWithKey } from '../../src/modules/organizations/bootstrap.ts';
import { api, type TestContext } from './app.ts';

export interface Member {
  userId: string;
  email: string;
  role: Role;
  /** An access token of this member. */
  token: string;
}

export interface Tenant {
  organizationId: string;
  /** The owner's API key. */
  apiKey: string;
  owner: Member;
  manager: Member;
  collector: Member;
  viewer: Member;
}

const unique = () => randomBytes(5).toString('hex');

/** A new access token for a member (for calls that end the token they use, like logout). */
export async function issueToken(t: TestContext, organizationId: string, userId: string): Promise<string> {
  const token = newAccessToken();
  await t.database.system((tx) =>
    tx
      .insertInto('access_tokens')
      .values({
        organization_id: organizationId,
        user_id: userId,
        token_hash: sha256Hex(token),
        expires_at: new Date(Date.now() + 3_600_000),
      })
      .execute(),
  );
  return token;
}

/** Adds a user with `role` to an organization and gives them an access token. */
export async function addMember(
  t: TestContext,
  organizationId: string,
  role: Role,
  email = `${role.toLowerCase()}-${unique()}@example.com`,
): Promise<Member> {
  const userId = await t.database.system(async (tx) => {
    const user = await tx
      .insertInto('users')
      .values({ email, name: `${role} ${email}`, password_hash: null, image: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx
      .insertInto('memberships')
      .values({ organization_id: organizationId, user_id: user.id, role })
      .execute();
    return user.id;
  });
  return { userId, email, role, token: await issueToken(t, organizationId, userId) };
}

/** An organization with one member of each role; the owner also has an API key. */
export async function createTenant(t: TestContext, name = `Org ${unique()}`): Promise<Tenant> {
  const ownerEmail = `owner-${unique()}@example.com`;
  const created = await createOrganizationWithKey(t.database, {
    organizationName: name,
    email: ownerEmail,
    name: 'Owner',
    password: null,
  });
  if (!created) throw new Error('tenant not created');
  const organizationId = created.organization.id;
  const token = await issueToken(t, organizationId, created.user.id);
  return {
    organizationId,
    apiKey: created.apiKey,
    owner: { userId: created.user.id, email: ownerEmail, role: 'OWNER', token },
    manager: await addMember(t, organizationId, 'MANAGER'),
    collector: await addMember(t, organizationId, 'COLLECTOR'),
    viewer: await addMember(t, organizationId, 'VIEWER'),
  };
}

/** Stores a site directly (for tests of other modules); returns its id. */
export async function createSite(
  t: TestContext,
  organizationId: string,
  fields: {
    name?: string;
    parentId?: string | null;
    code?: string | null;
    metadata?: Record<string, unknown>;
  } = {},
): Promise<string> {
  const row = await t.database.tenant(organizationId, (tx) =>
    tx
      .insertInto('sites')
      .values({
        organization_id: organizationId,
        name: fields.name ?? `Site ${unique()}`,
        parent_id: fields.parentId ?? null,
        code: fields.code ?? null,
        metadata: JSON.stringify(fields.metadata ?? {}),
        address: JSON.stringify({}),
      })
      .returning('id')
      .executeTakeFirstOrThrow(),
  );
  return row.id;
}

/** Assigns sites to a member (each assignment includes the site's descendants). */
export async function assignSites(
  t: TestContext,
  organizationId: string,
  userId: string,
  siteIds: string[],
): Promise<void> {
  if (siteIds.length === 0) return;
  await t.database.tenant(organizationId, (tx) =>
    tx
      .insertInto('membership_sites')
      .values(
        siteIds.map((siteId) => ({ organization_id: organizationId, user_id: userId, site_id: siteId })),
      )
      .execute(),
  );
}

/** Stores a coefficient dataset directly (for tests of other modules); returns its id. */
export async function createDataset(
  t: TestContext,
  organizationId: string,
  fields: { name?: string; isCommon?: boolean } = {},
): Promise<string> {
  const row = await t.database.tenant(organizationId, (tx) =>
    tx
      .insertInto('datasets')
      .values({
        organization_id: organizationId,
        name: fields.name ?? `Dataset ${unique()}`,
        description: null,
        is_common: fields.isCommon ?? false,
      })
      .returning('id')
      .executeTakeFirstOrThrow(),
  );
  return row.id;
}

/** Stores a coefficient (dataset item) directly; returns its id. `unit` is a unit symbol. */
export async function createDatasetItem(
  t: TestContext,
  organizationId: string,
  datasetId: string,
  fields: {
    key: string;
    value: number;
    year: number;
    name?: string;
    unit?: string | null;
    inputUnitId?: string | null;
  },
): Promise<string> {
  const row = await t.database.tenant(organizationId, (tx) =>
    tx
      .insertInto('dataset_items')
      .values({
        organization_id: organizationId,
        dataset_id: datasetId,
        name: fields.name ?? fields.key,
        key: fields.key,
        value: fields.value,
        unit: fields.unit ?? null,
        year: fields.year,
        description: null,
        link: null,
        metadata: JSON.stringify({}),
        tags: [],
        input_unit_id: fields.inputUnitId ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow(),
  );
  return row.id;
}

/** Creates a form through the API as the tenant's owner; answers the stored form. */
export async function createForm(
  t: TestContext,
  tenant: Tenant,
  body: { name?: string; periodType?: string; metadata?: Record<string, unknown>; elements?: unknown[] } = {},
): Promise<{ id: string; elements: { id: string; key: string; type: string }[] } & Record<string, unknown>> {
  const res = await api(t, 'POST', '/forms', {
    token: tenant.owner.token,
    body: {
      name: body.name ?? `Form ${unique()}`,
      periodType: body.periodType ?? 'MONTHLY',
      ...(body.metadata ? { metadata: body.metadata } : {}),
      elements: body.elements ?? [{ key: 'amount', label: 'Amount', type: 'NUMBER' }],
    },
  });
  if (res.status !== 200) throw new Error(`form not created: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Makes a form active on the sites for the years, through the API as the tenant's owner. */
export async function activateForm(
  t: TestContext,
  tenant: Tenant,
  formId: string,
  siteIds: string[],
  years: number[],
): Promise<void> {
  const res = await api(t, 'PUT', '/form-sites', {
    token: tenant.owner.token,
    body: { formId, siteIds, years },
  });
  if (res.status !== 200) throw new Error(`form-sites not set: ${JSON.stringify(res.body)}`);
}

/**
 * Stores an activity definition directly, without the API's syntax check (for tests of other
 * modules); returns its id. Inputs are stored as given (`required`, `exportName` filled in).
 */
export async function createActivityDefinition(
  t: TestContext,
  organizationId: string,
  fields: {
    key?: string;
    name?: string;
    calcCode?: string;
    inputs?: { name: string; type: 'string' | 'number' | 'boolean' | 'date'; required?: boolean }[];
    metadataSchema?: Record<string, unknown> | null;
    isCommon?: boolean;
    /** The unit the calcCode's value is in. */
    unitId?: string | null;
  } = {},
): Promise<string> {
  const key = fields.key ?? `activity-${unique()}`;
  const inputs = (fields.inputs ?? [{ name: 'amount', type: 'number', required: true }]).map((input) => ({
    required: false,
    exportName: input.name,
    ...input,
  }));
  const row = await t.database.system((tx) =>
    tx
      .insertInto('activity_definitions')
      .values({
        organization_id: organizationId,
        key,
        name: fields.name ?? key,
        ui_code: '',
        calc_code: fields.calcCode ?? 'return inputs.amount * 2',
        inputs: JSON.stringify(inputs),
        metadata_schema: fields.metadataSchema ? JSON.stringify(fields.metadataSchema) : null,
        is_common: fields.isCommon ?? false,
        unit_id: fields.unitId ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow(),
  );
  return row.id;
}
