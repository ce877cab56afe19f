import { randomUUID } from 'node:crypto';
import type { Role } from '../../../src/db/schema/index.ts';
import { api, type TestContext } from '../../helpers/app.ts';
import {
  activateForm,
  assignSites,
  createForm,
  createSite,
  type Member,
  type Tenant,
} from '../../helpers/factories.ts';
import { createUploadedMedia } from '../../helpers/media.ts';
import type { SecurityCase, SiteCase } from '../matrix.ts';
import type { Plants } from '../plants.ts';

/**
 * An uploaded file attached (by the owner) to a value of a site assigned to the tenant's
 * viewer, collector and manager: a file all of them may see.
 */
async function fileOnTheirSite(t: TestContext, tenant: Tenant): Promise<string> {
  const siteId = await createSite(t, tenant.organizationId);
  for (const m of [tenant.manager, tenant.collector, tenant.viewer])
    await assignSites(t, tenant.organizationId, m.userId, [siteId]);
  const form = await createForm(t, tenant, {
    periodType: 'YEARLY',
    elements: [{ key: 'doc', label: 'Invoice', type: 'FILE' }],
  });
  await activateForm(t, tenant, form.id, [siteId], [2025]);
  const mediaId = await createUploadedMedia(t, tenant.organizationId, tenant.owner.userId);
  const res = await api(t, 'POST', '/form-submissions', {
    token: tenant.owner.token,
    body: {
      formId: form.id,
      siteId,
      year: 2025,
      values: [{ elementKey: 'doc', periodUnit: 1, value: mediaId }],
    },
  });
  if (res.status !== 200) throw new Error(`file not attached: ${JSON.stringify(res.body)}`);
  return mediaId;
}

export const cases: SecurityCase[] = [
  {
    method: 'POST',
    route: '/media/presigned-url',
    prepare: async () => ({
      url: '/media/presigned-url',
      body: { fileName: 'matrix.pdf', entityId: 'matrix', fieldName: 'doc', fileSize: 10 },
    }),
  },
  {
    method: 'GET',
    route: '/media/:id',
    tenantRecord: true,
    // The lowest allowed role (VIEWER) sees a file attached on one of its sites.
    prepare: async (t, tenant) => ({ url: `/media/${await fileOnTheirSite(t, tenant)}` }),
  },
  {
    method: 'DELETE',
    route: '/media/:id',
    tenantRecord: true,
    // The lowest allowed role (COLLECTOR) may delete what it uploaded.
    prepare: async (t, tenant) => ({
      url: `/media/${await createUploadedMedia(t, tenant.organizationId, tenant.collector.userId)}`,
    }),
  },
  {
    method: 'POST',
    route: '/media/upload',
    // Public: the signed policy in the form is the credential (a missing one is an S3 400).
    prepare: async () => ({ url: '/media/upload' }),
  },
  {
    method: 'GET',
    route: '/media/:id/content',
    // Public: the signed URL is the credential (an unsigned one is a 403).
    prepare: async () => ({ url: `/media/${randomUUID()}/content?expires=1&signature=00` }),
  },
];

/** Where a file lies for a member limited to Plant 1, and how to make one there. */
const PLACES: { place: string; file: (p: Plants, caller: Member) => Promise<string> }[] = [
  { place: 'a file attached on their site', file: async (p) => (await p.attachedFile(p.plant1)).mediaId },
  { place: 'a file attached on the other site', file: async (p) => (await p.attachedFile(p.plant2)).mediaId },
  { place: 'their own file, attached nowhere', file: (p, caller) => p.unattachedFile(caller) },
  {
    place: 'another person’s file, attached nowhere',
    file: (p, caller) => p.unattachedFile(caller.role === 'OWNER' ? p.tenant.collector : p.tenant.owner),
  },
];

type Table = Record<string, Partial<Record<Role, number>>>;

/** Reading: a file is seen with its site, or (attached nowhere) by its uploader and the owner. */
const GET: Table = {
  'a file attached on their site': { VIEWER: 200, COLLECTOR: 200, MANAGER: 200, OWNER: 200 },
  'a file attached on the other site': { VIEWER: 404, COLLECTOR: 404, MANAGER: 404, OWNER: 200 },
  'their own file, attached nowhere': { VIEWER: 200, COLLECTOR: 200, MANAGER: 200, OWNER: 200 },
  'another person’s file, attached nowhere': { VIEWER: 404, COLLECTOR: 404, MANAGER: 404, OWNER: 200 },
};

/** Deleting: a file seen (else 404), by its uploader or a manager (else 403), not while in use (400). */
const DELETE: Table = {
  'a file attached on their site': { VIEWER: 403, COLLECTOR: 403, MANAGER: 400, OWNER: 400 },
  'a file attached on the other site': { VIEWER: 403, COLLECTOR: 404, MANAGER: 404, OWNER: 400 },
  'their own file, attached nowhere': { VIEWER: 403, COLLECTOR: 200, MANAGER: 200, OWNER: 200 },
  'another person’s file, attached nowhere': { VIEWER: 403, COLLECTOR: 404, MANAGER: 404, OWNER: 200 },
};

/** Attaching to a value of Plant 1: only a file the caller sees (else 400, as an unknown id). */
const ATTACH: Table = {
  'a file attached on their site': { VIEWER: 403, COLLECTOR: 200, MANAGER: 200, OWNER: 200 },
  'a file attached on the other site': { VIEWER: 403, COLLECTOR: 400, MANAGER: 400, OWNER: 200 },
  'their own file, attached nowhere': { VIEWER: 403, COLLECTOR: 200, MANAGER: 200, OWNER: 200 },
  'another person’s file, attached nowhere': { VIEWER: 403, COLLECTOR: 400, MANAGER: 400, OWNER: 200 },
};

/** After a refusal the file is still there (the owner reads it). */
const stillThere = (t: TestContext, p: Plants, mediaId: string) => async () => {
  const res = await api(t, 'GET', `/media/${mediaId}`, { token: p.tenant.owner.token });
  if (res.status !== 200) throw new Error(`the file is gone after a refusal: ${res.status}`);
};

export const siteCases: SiteCase[] = PLACES.flatMap(({ place, file }): SiteCase[] => [
  {
    method: 'GET',
    route: '/media/:id',
    place,
    expect: GET[place]!,
    prepare: async (_t, p, caller) => ({ url: `/media/${await file(p, caller)}` }),
  },
  {
    method: 'DELETE',
    route: '/media/:id',
    place,
    expect: DELETE[place]!,
    prepare: async (t, p, caller) => {
      const mediaId = await file(p, caller);
      return {
        url: `/media/${mediaId}`,
        after: async (res) => {
          if (res.status !== 200) await stillThere(t, p, mediaId)();
        },
      };
    },
  },
  {
    method: 'POST',
    route: '/form-submissions',
    place: `${place}, as the FILE value of a Plant 1 value`,
    expect: ATTACH[place]!,
    prepare: async (_t, p, caller) => {
      const mediaId = await file(p, caller);
      const formId = await p.fileForm();
      return {
        url: '/form-submissions',
        body: {
          formId,
          siteId: p.plant1,
          year: 2025,
          values: [{ elementKey: 'doc', periodUnit: 1, value: mediaId }],
        },
        after: (res) => {
          // Refused as an id that does not exist: the same words as for a random one.
          if (
            res.status === 400 &&
            res.body.issues?.[0]?.message !== `media ${mediaId} does not exist in this organization`
          )
            throw new Error(`refused with other words: ${JSON.stringify(res.body)}`);
        },
      };
    },
  },
]);
