// What the period screen loads, and the drafts it edits: one draft per element, built from the
// stored values; saving sends what changed in one POST /form-submissions.

import type { Issue } from './api.js';
import { answer, api } from './api.js';
import type { Form, FormLock, SentValue } from './api-shapes.js';
import { issueText } from './issue-text.js';
import { numberForInput, readNumber } from './numbers.js';

/** Which period the entry screen shows. */
export type PeriodKey = { formId: string; siteId: string; year: number; periodUnit: number };

/** A row of a TIMESTAMP draft (`at`, `text`, `storedAt`) or of an ACTIVITY draft (its inputs' texts). */
export type DraftRow = { [input: string]: string | undefined };
/**
 * One element's draft: what its fields hold. NUMBER: text, unitId and comment; TIMESTAMP and
 * ACTIVITY: rows (ACTIVITY also noActivity); FILE: mediaId, fileName, size; others: text.
 */
export type Draft = {
  text?: string;
  unitId?: string;
  comment?: string;
  rows?: DraftRow[];
  noActivity?: boolean;
  mediaId?: string | null;
  fileName?: string | null;
  size?: number | null;
};
export type Drafts = Record<string, Draft>;
/** Which element (and row) a value sent is, to put the service's issues beside their fields. */
export type Target = { key: string; row?: number };
/** A value of POST /form-submissions, or one waiting for its file (offline/outbox.ts). */
export type SendValue = SentValue & { pendingFile?: string };
/** An issue placed beside its field. */
export type PlacedIssue = {
  message: string;
  row: number | undefined;
  input: string | null;
  type: string;
  acknowledged: boolean;
  value?: unknown;
  reference?: unknown;
  factor?: unknown;
  change?: unknown;
  unit?: unknown;
};
/** An issue beside a field: the service's (placed) or the screen's own (rules.ts). */
export type FieldIssue =
  | PlacedIssue
  | { message: string; row?: number; input?: string | null; type?: string };
/** Changes one element's draft. */
export type Update = (change: Partial<Draft>) => void;
export type PlacedIssues = { byKey: Record<string, PlacedIssue[]>; general: string[] };

/** Everything the screen shows for (form, site, year, period), from the public API. */
export async function loadPeriod({ formId, siteId, year, periodUnit }: PeriodKey) {
  const [form, units, submissions, locks, completeness, formSites] = await Promise.all([
    answer(api.GET('/api/v1/forms/{id}', { params: { path: { id: formId } } })),
    answer(api.GET('/api/v1/units')),
    answer(api.GET('/api/v1/form-submissions', { params: { query: { formId, siteId, year, limit: 1 } } })),
    answer(api.GET('/api/v1/form-locks', { params: { query: { formId } } })),
    // Every site of the form the person sees (by name): this one's status, and the previous and next site.
    answer(
      api.GET('/api/v1/completeness', {
        params: { query: { formId, year, periodUnits: [periodUnit], limit: 1000 } },
      }),
    ),
    // The years the form is active on this site: the period links cross a year's end only into those.
    answer(api.GET('/api/v1/form-sites', { params: { query: { formId, siteId } } })),
  ]);
  const submission = submissions.items[0] ?? null;
  const values = (submission?.values ?? []).filter(
    (v) => v.periodUnit === periodUnit && v.value !== null && !v.deletedAt,
  );
  const activityElements = form.elements.filter((e) => e.type === 'ACTIVITY');
  const [definitions, activities] = await Promise.all([
    Promise.all(
      activityElements.map((e) =>
        answer(
          api.GET('/api/v1/activity-definitions/{id}', {
            params: { path: { id: e.activityDefinitionId ?? '' } },
          }),
        ),
      ),
    ),
    Promise.all(
      activityElements.map((e) =>
        answer(
          api.GET('/api/v1/activities', {
            params: {
              query: {
                formId,
                key: e.key,
                siteIds: [siteId],
                years: [year],
                periodUnits: [periodUnit],
                limit: 1000,
              },
            },
          }),
        ),
      ),
    ),
  ]);
  const fileIds = values.filter((v) => byId(form, v.elementId)?.type === 'FILE').map((v) => String(v.value));
  const media = await Promise.all(
    fileIds.map((id) =>
      answer(api.GET('/api/v1/media/{id}', { params: { path: { id } } })).catch(() => null),
    ),
  );
  // The reviewer's word on reviewed values: the latest REVIEW entry of each value's history.
  const reviewed = values.filter((v) => v.status !== 'COMPLETED');
  const histories = await Promise.all(
    reviewed.map((v) =>
      answer(
        api.GET('/api/v1/form-submissions/values/{id}/history', {
          params: { path: { id: v.formElementSubmissionId } },
        }),
      ).catch(() => []),
    ),
  );
  const reviews = new Map(
    reviewed.map((v, i) => [
      v.formElementSubmissionId,
      histories[i]?.filter((h) => h.action === 'REVIEW').at(-1),
    ]),
  );
  const site = completeness.items.find((s) => s.siteId === siteId) ?? null;
  return {
    sites: completeness.items.map((s) => ({ siteId: s.siteId, siteName: s.siteName })),
    activeYears: [...new Set(formSites.map((fs) => fs.year))].sort((a, b) => a - b),
    form,
    units,
    values,
    site,
    period: site?.periods.find((p) => p.periodUnit === periodUnit) ?? null,
    lock: activeLock(locks, { siteId, year, periodUnit }),
    definitions: new Map(activityElements.map((e, i) => [e.key, definitions[i]])),
    activities: new Map(activityElements.map((e, i) => [e.key, activities[i]])),
    media: new Map(fileIds.map((id, i) => [id, media[i]])),
    reviews,
  };
}

/** Everything the entry screen shows of a period. */
export type PeriodData = Awaited<ReturnType<typeof loadPeriod>>;

const byId = (form: Form, id: string) => form.elements.find((e) => e.id === id);

function activeLock(locks: FormLock[], { siteId, year, periodUnit }: Omit<PeriodKey, 'formId'>) {
  return (
    locks.find(
      (l) =>
        !l.unlockedAt &&
        l.year === year &&
        (l.periodUnit === null || l.periodUnit === periodUnit) &&
        (l.siteId === null || l.siteId === siteId),
    ) ?? null
  );
}

const localDateTime = (iso: string) => {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

const asText = (value: unknown) =>
  typeof value === 'number'
    ? numberForInput(value)
    : value === null || value === undefined
      ? ''
      : String(value);

/** The drafts of every element, as the stored data reads. */
export function draftsFrom(data: PeriodData): Drafts {
  const drafts: Drafts = {};
  for (const element of data.form.elements) {
    const stored = data.values.filter((v) => v.elementId === element.id);
    const first = stored[0];
    switch (element.type) {
      case 'NUMBER': {
        // Show what the person typed (before conversion) in the unit they chose.
        const converted = first?.selectedUnitId && first.originalValue !== null;
        drafts[element.key] = {
          text: asText(converted ? first.originalValue : first?.value),
          unitId: (converted ? first.selectedUnitId : element.unitId) ?? '',
        };
        break;
      }
      case 'TIMESTAMP':
        drafts[element.key] = {
          rows: stored
            .filter((v) => v.timestamp)
            .sort((a, b) => String(a.timestamp).localeCompare(String(b.timestamp)))
            .map((v) => ({
              at: localDateTime(String(v.timestamp)),
              text: asText(v.value),
              storedAt: String(v.timestamp),
            })),
        };
        break;
      case 'FILE': {
        const media = first ? data.media.get(String(first.value)) : null;
        drafts[element.key] = first
          ? { mediaId: String(first.value), fileName: media?.fileName ?? 'file', size: media?.size ?? null }
          : { mediaId: null };
        break;
      }
      case 'ACTIVITY': {
        const listed = data.activities.get(element.key);
        const definition = data.definitions.get(element.key);
        drafts[element.key] = {
          rows: (listed?.activities ?? []).map((a) =>
            Object.fromEntries(
              (definition?.inputs ?? []).map((input) => [
                input.name,
                asText((a.input as Record<string, unknown>)[input.name]),
              ]),
            ),
          ),
          noActivity: (listed?.noActivity.length ?? 0) > 0,
        };
        break;
      }
      case 'BOOLEAN':
        drafts[element.key] = { text: first ? String(first.value) : '' };
        break;
      default:
        drafts[element.key] = { text: asText(first?.value) };
    }
  }
  return drafts;
}

function inputValue(input: { type: string }, text: string | undefined) {
  if (text === '' || text === undefined) return undefined;
  if (input.type === 'number') return readableNumber(text) ?? undefined;
  if (input.type === 'boolean') return text === 'true';
  return text;
}

/**
 * The values to send for what changed since `original`; `targets[i]` says which element (and
 * row) `values[i]` is, to put the service's issues (`values.i…`) beside their fields.
 */
export function changedValues(
  data: PeriodData,
  drafts: Drafts,
  original: Drafts,
  periodUnit: number,
  skip: Set<string> = new Set(),
): { values: SendValue[]; targets: Target[] } {
  const values: SendValue[] = [];
  const targets: Target[] = [];
  const push = (value: SendValue, target: Target) => {
    values.push(value);
    targets.push(target);
  };
  for (const element of data.form.elements) {
    const key = element.key;
    if (skip.has(key)) continue;
    const draft = drafts[key] ?? {};
    const before = original[key] ?? {};
    if (element.type === 'ACTIVITY') {
      if (JSON.stringify(draft.rows) === JSON.stringify(before.rows)) continue;
      const inputs = data.definitions.get(key)?.inputs ?? [];
      const rows = (draft.rows ?? []).map((row) =>
        Object.fromEntries(
          inputs
            .map((input) => [input.name, inputValue(input, row[input.name])])
            .filter(([, v]) => v !== undefined),
        ),
      );
      push({ elementKey: key, periodUnit, value: rows.length ? rows : null } as SendValue, { key });
      continue;
    }
    if (JSON.stringify(draft) === JSON.stringify(before)) continue;
    switch (element.type) {
      case 'NUMBER': {
        const value = readableNumber(draft.text);
        const unit = draft.unitId && draft.unitId !== element.unitId ? draft.unitId : null;
        push(
          {
            elementKey: key,
            periodUnit,
            value,
            ...(unit && value !== null ? { selectedUnitId: unit } : {}),
            ...comment(draft),
          },
          { key },
        );
        break;
      }
      case 'TIMESTAMP': {
        const kept = new Set<string>();
        (draft.rows ?? []).forEach((row, index) => {
          if (!row.at) return;
          const timestamp = new Date(row.at).toISOString();
          kept.add(timestamp);
          const value = readableNumber(row.text);
          push({ elementKey: key, timestamp, value: value === null ? '' : value }, { key, row: index });
        });
        for (const row of before.rows ?? []) {
          if (!kept.has(new Date(row.storedAt ?? '').toISOString())) {
            push({ elementKey: key, timestamp: row.storedAt, value: null }, { key });
          }
        }
        break;
      }
      case 'FILE':
        push({ elementKey: key, periodUnit, value: draft.mediaId ?? null }, { key });
        break;
      case 'BOOLEAN':
        push(
          { elementKey: key, periodUnit, value: draft.text === '' ? null : draft.text === 'true' },
          { key },
        );
        break;
      default:
        push({ elementKey: key, periodUnit, value: draft.text === '' ? null : draft.text }, { key });
    }
  }
  return { values, targets };
}

/**
 * The number typed, or null for an empty field. The screen sends nothing while a number cannot be
 * read; should one get here all the same, it stops the request instead of going out as null.
 */
function readableNumber(text: string | undefined): number | null {
  const read = readNumber(text);
  if (read.error) throw new Error(read.error);
  return read.value ?? null;
}

/** The person's comment on a value (it acknowledges an outlier), when there is one. */
const comment = (draft: Draft) => (draft.comment?.trim() ? { comment: draft.comment.trim() } : {});

/**
 * The service's issues by element key (and activity row): `values.3.value.1.litres` is the
 * second row of the element sent fourth. Issues that name no value are general.
 */
export function placeIssues(issues: readonly Issue[], targets: readonly Target[]): PlacedIssues {
  const byKey: Record<string, PlacedIssue[]> = {};
  const general: string[] = [];
  for (const issue of issues) {
    const match = /^values\.(\d+)(?:\.value\.(\d+)(?:\.(.+))?)?/.exec(issue.path ?? '');
    const target = match ? targets[Number(match[1])] : null;
    if (!match || !target) {
      general.push(issueText(issue));
      continue;
    }
    const row = match[2] !== undefined ? Number(match[2]) : target.row;
    byKey[target.key] = [
      ...(byKey[target.key] ?? []),
      {
        message: fieldMessage(issueText(issue), target.key),
        row,
        input: match[3] ?? null,
        type: typeof issue.type === 'string' ? issue.type : 'invalid',
        acknowledged: issue.acknowledged === true,
        // An outlier's figures, for the screen to word in the person's locale.
        ...(issue.type === 'outlier'
          ? {
              value: issue.value,
              reference: issue.reference,
              factor: issue.factor,
              change: issue.change,
              unit: issue.unit,
            }
          : {}),
      },
    ];
  }
  return { byKey, general };
}

/**
 * "values.0.value must be a finite number" beside its field reads "Must be a finite number"; an
 * element key in front ("elec: …") goes too, the field's label says which it is.
 */
export function fieldMessage(message: unknown, key: string | null | undefined) {
  const text = String(message ?? '')
    .replace(/^values\.\d+(\.value)?(\.\d+)?(\.[\w-]+)?:?\s+/, '')
    .replace(key ? new RegExp(`^${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\s*`) : /^$/, '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
