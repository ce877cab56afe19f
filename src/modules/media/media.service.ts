import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import type { Clock } from '../../domain/clock.ts';
import { authorize, badRequest, coded, type Issue, notFound } from '../../domain/errors.ts';
import type { IssueCode, IssueParams } from '../../domain/issue-codes.ts';
import { isOwner } from '../../domain/roles.ts';
import { iso } from '../../domain/time.ts';
import { isUuid } from '../../lib/ids.ts';
import {
  DOWNLOAD_TTL_SECONDS,
  type Storage,
  type StoredObject,
  UPLOAD_TTL_SECONDS,
} from '../../storage/storage.ts';
import { coversOrganization, siteScope } from '../access/index.ts';
import { extensionOf, fileNameProblem, safeKeyName } from './media.names.ts';
import { type MediaPlace, mediaPolicy } from './media.policy.ts';
import { presentMedia } from './media.present.ts';
import { type MediaRow, mediaRepository as repo } from './media.repository.ts';
import type { Media, PresignBody } from './media.schemas.ts';

export interface MediaDeps {
  config: Config;
  storage: Storage;
  clock: Clock;
}

/** `org/<organization>/<media>/<safe name>`: every key lies under its organization's prefix. */
export const mediaKey = (organizationId: string, mediaId: string, fileName: string) =>
  `org/${organizationId}/${mediaId}/${safeKeyName(fileName)}`;

const KEY = /^org\/([0-9a-f-]{36})\/([0-9a-f-]{36})\/[A-Za-z0-9._-]{1,120}$/;

/** The organization and media id a key names, when it has the shape of one of ours. */
export function parseMediaKey(key: string): { organizationId: string; mediaId: string } | undefined {
  const match = KEY.exec(key);
  if (!match || !isUuid(match[1]) || !isUuid(match[2])) return undefined;
  return { organizationId: match[1], mediaId: match[2] };
}

/** A refused upload request: one coded issue at `path`. */
const refused = (path: string, code: IssueCode, message: string, params?: IssueParams) =>
  badRequest(message, [coded(code, message, params, path)]);

/** Checks the request (type, size, name, quota), records a pending upload and signs its policy. */
export async function createUpload(tx: Tx, caller: Caller, body: PresignBody, deps: MediaDeps) {
  const { config } = deps;
  const fileName = body.fileName.normalize('NFC');
  const nameProblem = fileNameProblem(fileName);
  if (nameProblem) throw refused('fileName', 'media.nameInvalid', `fileName ${nameProblem}`);
  const extension = extensionOf(fileName);
  const allowedType = config.mediaTypes.get(extension);
  if (!allowedType) {
    const allowed = [...config.mediaTypes.keys()].map((e) => `.${e}`).join(', ');
    throw refused(
      'fileName',
      'media.typeNotAllowed',
      `Files of type "${extension ? `.${extension}` : 'no extension'}" are not accepted; allowed: ${allowed}`,
      { extension: extension ? `.${extension}` : '', allowed },
    );
  }
  const contentType = body.contentType?.trim().toLowerCase() ?? allowedType;
  if (contentType !== allowedType) {
    throw refused(
      'contentType',
      'media.typeMismatch',
      `contentType must be ${allowedType} for a .${extension} file`,
      { expected: allowedType, extension: `.${extension}` },
    );
  }
  if (body.fileSize > config.mediaMaxBytes) {
    throw refused('fileSize', 'media.tooLarge', `fileSize must be at most ${config.mediaMaxBytes} bytes`, {
      maxBytes: config.mediaMaxBytes,
    });
  }
  const now = deps.clock();
  if (config.mediaQuotaBytes !== null) {
    // Counted with the live reservations of other upload URLs, one request at a time.
    await repo.lockQuota(tx, caller.organizationId);
    const { uploaded, reserved } = await repo.quotaBytes(tx, caller.organizationId, now);
    if (uploaded + reserved + body.fileSize > config.mediaQuotaBytes) {
      const pending = reserved > 0 ? `, ${reserved} bytes reserved by upload URLs not used yet` : '';
      throw refused(
        'fileSize',
        'media.quotaExceeded',
        `The organization's storage quota of ${config.mediaQuotaBytes} bytes would be exceeded (${uploaded} bytes used${pending})`,
        { quotaBytes: config.mediaQuotaBytes, usedBytes: uploaded + reserved },
      );
    }
  }
  const id = randomUUID();
  const key = mediaKey(caller.organizationId, id, fileName);
  await repo.insert(tx, caller.organizationId, {
    id,
    key,
    fileName,
    contentType,
    declaredSize: body.fileSize,
    entityType: body.entityType ?? null,
    entityId: body.entityId,
    fieldName: body.fieldName,
    uploadedBy: caller.userId,
    // The reservation ends when the upload URL does.
    reservedUntil: new Date(now.getTime() + UPLOAD_TTL_SECONDS * 1000),
  });
  const post = await deps.storage.presignPost({
    key,
    contentType,
    maxSize: body.fileSize,
    now,
  });
  return { url: post.url, fields: post.fields, mediaId: id, mediaKey: key };
}

/** The stored file would take the organization past its quota: it is not accepted. */
export class OverQuota extends Error {}

/**
 * Marks a pending upload uploaded once its bytes are stored, checking the quota again against
 * what is uploaded by then (one completion at a time per organization): a reservation that ran
 * out, or a quota lowered meanwhile, cannot take the organization past it. Throws OverQuota;
 * answers undefined when the record is no longer pending.
 */
export async function completeUpload(
  tx: Tx,
  organizationId: string,
  id: string,
  stored: StoredObject,
  quotaBytes: number | null,
  now: Date,
): Promise<MediaRow | undefined> {
  if (quotaBytes !== null) {
    await repo.lockQuota(tx, organizationId);
    const { uploaded } = await repo.quotaBytes(tx, organizationId, now);
    if (uploaded + stored.size > quotaBytes) {
      throw new OverQuota(
        `The organization's storage quota of ${quotaBytes} bytes would be exceeded (${uploaded} bytes used); the file was not kept`,
      );
    }
  }
  return repo.markUploaded(tx, organizationId, id, stored);
}

/**
 * The ids among `files` the caller may see (`mediaPolicy.canSee`): one query for the sites the
 * files are attached to, one for the caller's sites, and one more only when a site-limited
 * manager asks about another person's unattached file.
 */
async function visibleIds(
  tx: Tx,
  caller: Caller,
  files: { id: string; uploaded_by: string | null }[],
): Promise<Set<string>> {
  // Owners (and the owners' API keys) see every file: no query.
  if (isOwner(caller)) return new Set(files.map((f) => f.id));
  const attached = await repo.attachedSites(
    tx,
    caller.organizationId,
    files.map((f) => f.id),
  );
  const sitesOf = new Map<string, string[]>();
  for (const a of attached) sitesOf.set(a.media_id, [...(sitesOf.get(a.media_id) ?? []), a.site_id]);
  const scope = await siteScope(tx, caller);
  const places = files.map((f): [string, MediaPlace] => [
    f.id,
    { uploadedBy: f.uploaded_by, siteIds: sitesOf.get(f.id) ?? [] },
  ]);
  const whole = places.some(([, p]) => mediaPolicy.needsWholeOrganization(caller, p))
    ? await coversOrganization(tx, caller, scope)
    : false;
  return new Set(places.flatMap(([id, p]) => (mediaPolicy.canSee(caller, scope, whole, p) ? [id] : [])));
}

/** A file the caller may see; any other (another tenant's, or one outside the caller's sites) is a 404. */
async function load(tx: Tx, caller: Caller, id: string, lock = false): Promise<MediaRow> {
  const row = isUuid(id) ? await repo.get(tx, caller.organizationId, id.toLowerCase(), lock) : undefined;
  if (!row || !(await visibleIds(tx, caller, [row])).has(row.id)) throw notFound('Media');
  return row;
}

/**
 * With S3 the service is not told about uploads: a pending record whose object now exists is
 * checked (size within the policy, content type) and marked uploaded with the object's SHA-256.
 * An object that breaks the policy is removed.
 */
async function confirmUpload(
  tx: Tx,
  row: MediaRow,
  storage: Storage,
  quotaBytes: number | null,
  now: Date,
): Promise<MediaRow> {
  if (row.status !== 'pending' || storage.kind !== 's3') return row;
  const stored = await storage.stat(row.key);
  if (!stored) return row;
  const fits = stored.size >= 1 && stored.size <= Number(row.declared_size);
  const typed = stored.contentType === undefined || stored.contentType.toLowerCase() === row.content_type;
  if (!fits || !typed) {
    await storage.remove(row.key);
    return row;
  }
  try {
    return (await completeUpload(tx, row.organization_id, row.id, stored, quotaBytes, now)) ?? row;
  } catch (error) {
    if (!(error instanceof OverQuota)) throw error;
    await storage.remove(row.key);
    return row;
  }
}

export async function getMedia(tx: Tx, caller: Caller, id: string, deps: MediaDeps): Promise<Media> {
  const now = deps.clock();
  const row = await confirmUpload(
    tx,
    await load(tx, caller, id, true),
    deps.storage,
    deps.config.mediaQuotaBytes,
    now,
  );
  const downloadUrl =
    row.status === 'uploaded'
      ? await deps.storage.downloadUrl({
          mediaId: row.id,
          key: row.key,
          fileName: row.file_name,
          contentType: row.content_type,
          now,
          expiresInSeconds: DOWNLOAD_TTL_SECONDS,
        })
      : null;
  return {
    ...presentMedia(row),
    downloadUrl,
    downloadUrlExpiresAt: downloadUrl ? iso(new Date(now.getTime() + DOWNLOAD_TTL_SECONDS * 1000)) : null,
  };
}

/**
 * Removes a record and its file: a file the caller sees (else 404), deleted by its uploader or a
 * manager (else 403), unless a stored value uses it (400).
 */
export async function deleteMedia(tx: Tx, caller: Caller, id: string, deps: MediaDeps): Promise<void> {
  const row = await load(tx, caller, id, true);
  authorize(
    mediaPolicy.canDelete(caller, { uploadedBy: row.uploaded_by, siteIds: [] }),
    'Only the person who uploaded this file or a manager may delete it',
  );
  const references = await repo.references(tx, caller.organizationId, row.id);
  if (references.length > 0) {
    throw badRequest(
      'The file is still in use',
      references.map((r) => ({
        message: `The file is the value of the element "${r.element_key}" in a submission; clear that value first`,
        path: 'id',
      })),
    );
  }
  await repo.remove(tx, caller.organizationId, row.id);
  // Inside the transaction: when the store fails, the record stays.
  await deps.storage.remove(row.key);
}

/**
 * FILE values must name an `uploaded` media record of the organization that the caller may see
 * (`mediaPolicy.canSee`): returns one issue per value that does not (path `values.<index>.value`).
 * A pending upload is not enough; a file the caller may not see is answered as one that does not
 * exist, so that attaching cannot tell whether it does.
 */
export async function checkFileValues(
  tx: Tx,
  caller: Caller,
  values: { index: number; mediaId: string }[],
): Promise<Issue[]> {
  const ids = [...new Set(values.map((v) => v.mediaId.toLowerCase()).filter(isUuid))];
  const found = await repo.statuses(tx, caller.organizationId, ids);
  const visible = found.length > 0 ? await visibleIds(tx, caller, found) : new Set<string>();
  const status = new Map(found.filter((r) => visible.has(r.id)).map((r) => [r.id, r.status]));
  const issues: Issue[] = [];
  for (const { index, mediaId } of values) {
    const found = status.get(mediaId.toLowerCase());
    if (found === 'uploaded') continue;
    issues.push(
      found
        ? coded(
            'value.fileNotUploaded',
            `media ${mediaId} is not uploaded yet: upload the file first`,
            undefined,
            `values.${index}.value`,
          )
        : coded(
            'value.fileUnknown',
            `media ${mediaId} does not exist in this organization`,
            undefined,
            `values.${index}.value`,
          ),
    );
  }
  return issues;
}
