import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/helpers/app.ts';
import { getUrl, useMediaApp } from '../../../test/helpers/media-world.ts';
import { createPlants, type Plants } from '../../../test/security/plants.ts';

/**
 * The attacks of issue 41 (item 2) on evidence files: members limited to Plant 1 read, attach
 * and delete files of Plant 2 or of other people. Each answer must be what a file that does not
 * exist gets, and nothing may change.
 */
const t = useMediaApp();
let w: Plants;
const BYTES = Buffer.from('%PDF-1.4 Plant 2 electricity invoice\n');

/** Puts bytes where local storage keeps the file, so that a download would hand them out. */
async function storeBytes(mediaId: string) {
  const path = join(t.config.dataDir, 'media', `org/${w.tenant.organizationId}/${mediaId}/evidence.pdf`);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, BYTES);
}

beforeAll(async () => {
  w = await createPlants(t);
});

describe('a file attached to a value of Plant 2', () => {
  it('is not there for the viewer, collector and manager of Plant 1; the owner downloads it', async () => {
    const { mediaId } = await w.attachedFile(w.plant2);
    await storeBytes(mediaId);
    for (const member of [w.tenant.viewer, w.tenant.collector, w.tenant.manager]) {
      const res = await api(t, 'GET', `/media/${mediaId}`, { token: member.token });
      expect(res.status, member.role).toBe(404);
      expect(res.body).toEqual({
        code: 'NOT_FOUND',
        message: 'Not found',
        issues: [{ message: 'Media not found' }],
      });
      expect(JSON.stringify(res.body)).not.toContain('evidence.pdf');
    }
    const owner = await api(t, 'GET', `/media/${mediaId}`, { token: w.tenant.owner.token });
    expect(owner.status).toBe(200);
    const download = await getUrl(t.app, owner.body.downloadUrl);
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload).toEqual(BYTES);
  });

  it('is there for the members of Plant 1 once it is attached on Plant 1 too (by the owner)', async () => {
    const { mediaId } = await w.attachedFile(w.plant2);
    const formId = await w.fileForm();
    const again = await api(t, 'POST', '/form-submissions', {
      token: w.tenant.owner.token,
      body: {
        formId,
        siteId: w.plant1,
        year: 2025,
        values: [{ elementKey: 'doc', periodUnit: 1, value: mediaId }],
      },
    });
    expect(again.status).toBe(200);
    const res = await api(t, 'GET', `/media/${mediaId}`, { token: w.tenant.viewer.token });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(mediaId);
  });

  it('cannot be attached by the collector of Plant 1 to their own value: answered as an unknown id', async () => {
    const { mediaId } = await w.attachedFile(w.plant2);
    const formId = await w.fileForm();
    const submit = (value: string) =>
      api(t, 'POST', '/form-submissions', {
        token: w.tenant.collector.token,
        body: { formId, siteId: w.plant1, year: 2025, values: [{ elementKey: 'doc', periodUnit: 1, value }] },
      });
    const res = await submit(mediaId);
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([
      {
        path: 'values.0.value',
        message: `media ${mediaId} does not exist in this organization`,
        code: 'value.fileUnknown',
      },
    ]);
    // Nothing was stored, so neither the export nor the audit pack can carry the file.
    const stored = await t.database.tenant(w.tenant.organizationId, (tx) =>
      tx
        .selectFrom('form_element_submissions')
        .select('id')
        .where('organization_id', '=', w.tenant.organizationId)
        .where('site_id', '=', w.plant1)
        .where('value', '=', JSON.stringify(mediaId))
        .execute(),
    );
    expect(stored).toEqual([]);
    const exported = await api(t, 'GET', '/exports/values?year=2025', { token: w.tenant.collector.token });
    expect(exported.status).toBe(200);
    expect(String(exported.body)).not.toContain(mediaId);
  });

  it('cannot be deleted by the manager of Plant 1 (404, the file stays)', async () => {
    const { mediaId } = await w.attachedFile(w.plant2);
    const res = await api(t, 'DELETE', `/media/${mediaId}`, { token: w.tenant.manager.token });
    expect(res.status).toBe(404);
    expect((await api(t, 'GET', `/media/${mediaId}`, { token: w.tenant.owner.token })).status).toBe(200);
  });
});

describe('a file attached nowhere', () => {
  it('the owner’s cannot be read, attached or deleted by the manager of Plant 1; the owner deletes it', async () => {
    const mediaId = await w.unattachedFile(w.tenant.owner);
    const manager = w.tenant.manager.token;
    expect((await api(t, 'GET', `/media/${mediaId}`, { token: manager })).status).toBe(404);
    const del = await api(t, 'DELETE', `/media/${mediaId}`, { token: manager });
    expect(del.status).toBe(404);
    expect(del.body.code).toBe('NOT_FOUND');
    const formId = await w.fileForm();
    const attach = await api(t, 'POST', '/form-submissions', {
      token: manager,
      body: {
        formId,
        siteId: w.plant1,
        year: 2025,
        values: [{ elementKey: 'doc', periodUnit: 1, value: mediaId }],
      },
    });
    expect(attach.status).toBe(400);
    expect(attach.body.issues[0].message).toBe(`media ${mediaId} does not exist in this organization`);
    // Still there, and still the owner's to delete.
    expect((await api(t, 'DELETE', `/media/${mediaId}`, { token: w.tenant.owner.token })).status).toBe(200);
  });

  it('belongs to its uploader: the collector reads, attaches and deletes their own', async () => {
    const own = await w.unattachedFile(w.tenant.collector);
    const token = w.tenant.collector.token;
    expect((await api(t, 'GET', `/media/${own}`, { token })).status).toBe(200);
    expect((await api(t, 'GET', `/media/${own}`, { token: w.tenant.viewer.token })).status).toBe(404);
    const formId = await w.fileForm();
    const attach = await api(t, 'POST', '/form-submissions', {
      token,
      body: {
        formId,
        siteId: w.plant1,
        year: 2025,
        values: [{ elementKey: 'doc', periodUnit: 1, value: own }],
      },
    });
    expect(attach.status, JSON.stringify(attach.body)).toBe(200);
    // Attached on Plant 1: now the viewer of Plant 1 sees it.
    expect((await api(t, 'GET', `/media/${own}`, { token: w.tenant.viewer.token })).status).toBe(200);
    const other = await w.unattachedFile(w.tenant.collector);
    expect((await api(t, 'DELETE', `/media/${other}`, { token })).status).toBe(200);
  });

  it('a manager of both plants (no site limit) reads and deletes another person’s', async () => {
    const mediaId = await w.unattachedFile(w.tenant.owner);
    const token = w.wideManager.token;
    expect((await api(t, 'GET', `/media/${mediaId}`, { token })).status).toBe(200);
    expect((await api(t, 'DELETE', `/media/${mediaId}`, { token })).status).toBe(200);
  });
});
