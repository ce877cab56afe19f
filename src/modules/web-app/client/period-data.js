// What the period screen loads, and the drafts it edits: one draft per element, built from the
// stored values; saving sends what changed in one POST /form-submissions.
import { get } from './api.js';
import { issueText } from './issue-text.js';
import { numberForInput, readNumber } from './numbers.js';

/** Everything the screen shows for (form, site, year, period), from the public API. */
export async function loadPeriod({ formId, siteId, year, periodUnit }) {
  const [form, units, submissions, locks, completeness, formSites] = await Promise.all([
    get(`/forms/${formId}`),
    get('/units'),
    get('/form-submissions', { formId, siteId, year, limit: 1 }),
    get('/form-locks', { formId }),
    // Every site of the form the person sees (by name): this one's status, and the previous and next site.
    get('/completeness', { formId, year, periodUnits: periodUnit, limit: 1000 }),
    // The years the form is active on this site: the period links cross a year's end only into those.
    get('/form-sites', { formId, siteId }),
  ]);
  const submission = submissions.items[0] ?? null;
  const values = (submission?.values ?? []).filter(
    (v) => v.periodUnit === periodUnit && v.value !== null && !v.deletedAt,
  );
  const activityElements = form.elements.filter((e) => e.type === 'ACTIVITY');
  const [definitions, activities] = await Promise.all([
    Promise.all(activityElements.map((e) => get(`/activity-definitions/${e.activityDefinitionId}`))),
    Promise.all(
      activityElements.map((e) =>
        get('/activities', {
          formId,
          key: e.key,
          siteIds: siteId,
          years: year,
          periodUnits: periodUnit,
          limit: 1000,
        }),
      ),
    ),
  ]);
  const fileIds = values.filter((v) => byId(form, v.elementId)?.type === 'FILE').map((v) => v.value);
  const media = await Promise.all(fileIds.map((id) => get(`/media/${id}`).catch(() => null)));
  // The reviewer's word on reviewed values: the latest REVIEW entry of each value's history.
  const reviewed = values.filter((v) => v.status !== 'COMPLETED');
  const histories = await Promise.all(
    reviewed.map((v) => get(`/form-submissions/values/${v.formElementSubmissionId}/history`).catch(() => [])),
  );
  const reviews = new Map(
    reviewed.map((v, i) => [
      v.formElementSubmissionId,
      histories[i].filter((h) => h.action === 'REVIEW').at(-1),
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

const byId = (form, id) => form.elements.find((e) => e.id === id);

function activeLock(locks, { siteId, year, periodUnit }) {
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

const localDateTime = (iso) => {
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

const asText = (value) =>
  typeof value === 'number'
    ? numberForInput(value)
    : value === null || value === undefined
      ? ''
      : String(value);

/** The drafts of every element, as the stored data reads. */
export function draftsFrom(data) {
  const drafts = {};
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
            .sort((a, b) => a.timestamp.localeCompare(b.timestamp))
            .map((v) => ({ at: localDateTime(v.timestamp), text: asText(v.value), storedAt: v.timestamp })),
        };
        break;
      case 'FILE': {
        const media = first ? data.media.get(first.value) : null;
        drafts[element.key] = first
          ? { mediaId: first.value, fileName: media?.fileName ?? 'file', size: media?.size ?? null }
          : { mediaId: null };
        break;
      }
      case 'ACTIVITY': {
        const listed = data.activities.get(element.key);
        const definition = data.definitions.get(element.key);
        drafts[element.key] = {
          rows: listed.activities.map((a) =>
            Object.fromEntries(definition.inputs.map((input) => [input.name, asText(a.input[input.name])])),
          ),
          noActivity: listed.noActivity.length > 0,
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

function inputValue(input, text) {
  if (text === '' || text === undefined) return undefined;
  if (input.type === 'number') return readableNumber(text) ?? undefined;
  if (input.type === 'boolean') return text === 'true';
  return text;
}

/**
 * The values to send for what changed since `original`; `targets[i]` says which element (and
 * row) `values[i]` is, to put the service's issues (`values.i…`) beside their fields.
 */
export function changedValues(data, drafts, original, periodUnit, skip = new Set()) {
  const values = [];
  const targets = [];
  const push = (value, target) => {
    values.push(value);
    targets.push(target);
  };
  for (const element of data.form.elements) {
    const key = element.key;
    if (skip.has(key)) continue;
    const draft = drafts[key];
    const before = original[key];
    if (element.type === 'ACTIVITY') {
      if (JSON.stringify(draft.rows) === JSON.stringify(before.rows)) continue;
      const inputs = data.definitions.get(key).inputs;
      const rows = draft.rows.map((row) =>
        Object.fromEntries(
          inputs
            .map((input) => [input.name, inputValue(input, row[input.name])])
            .filter(([, v]) => v !== undefined),
        ),
      );
      push({ elementKey: key, periodUnit, value: rows.length ? rows : null }, { key });
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
        const kept = new Set();
        draft.rows.forEach((row, index) => {
          if (!row.at) return;
          const timestamp = new Date(row.at).toISOString();
          kept.add(timestamp);
          const value = readableNumber(row.text);
          push({ elementKey: key, timestamp, value: value === null ? '' : value }, { key, row: index });
        });
        for (const row of before.rows) {
          if (!kept.has(new Date(row.storedAt).toISOString())) {
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
function readableNumber(text) {
  const read = readNumber(text);
  if (read.error) throw new Error(read.error);
  return read.value;
}

/** The person's comment on a value (it acknowledges an outlier), when there is one. */
const comment = (draft) => (draft.comment?.trim() ? { comment: draft.comment.trim() } : {});

/**
 * The service's issues by element key (and activity row): `values.3.value.1.litres` is the
 * second row of the element sent fourth. Issues that name no value are general.
 */
export function placeIssues(issues, targets) {
  const byKey = {};
  const general = [];
  for (const issue of issues) {
    const match = /^values\.(\d+)(?:\.value\.(\d+)(?:\.(.+))?)?/.exec(issue.path ?? '');
    const target = match ? targets[Number(match[1])] : null;
    if (!target) {
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
        type: issue.type ?? 'invalid',
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
export function fieldMessage(message, key) {
  const text = String(message ?? '')
    .replace(/^values\.\d+(\.value)?(\.\d+)?(\.[\w-]+)?:?\s+/, '')
    .replace(key ? new RegExp(`^${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\s*`) : /^$/, '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
