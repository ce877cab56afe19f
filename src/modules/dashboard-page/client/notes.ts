import { el } from './page.ts';
import { LOCALE, say } from './language.ts';
import type { ViewSeries, SeriesIssue, ViewWidgetIssue } from './types.ts';

// A widget's notes: what its series could not compute, and the targets it cannot draw. The
// service explains each in an English sentence with a `type`; a page in another language says
// it in its own words by that type, naming the indicator, the site and the target from the
// page's data (decision 230). A type the page does not know keeps the service's sentence.

/** The page's message for each series issue type (the indicator's calculation). */
const SERIES_NOTES: Record<string, string> = {
  noData: 'noteNoData',
  deletedFormElement: 'noteDeletedElement',
  missingDatasetItem: 'noteMissingItem',
  unitMismatch: 'noteUnit',
  unknownUnit: 'noteUnit',
  dimensionMismatch: 'noteUnit',
  invalidExpression: 'noteFormula',
};

/** The page's message for each widget issue type (targets that cannot be drawn). */
const TARGET_NOTES: Record<string, string> = {
  targetNotAdditive: 'noteTargetNotAdditive',
  targetBaselineMissing: 'noteTargetBaseline',
  targetNotShown: 'noteTargetNotShown',
};

const indicatorOf = (s: ViewSeries) => (s.siteName ? `${s.name} · ${s.siteName}` : s.name);

function seriesNote(issue: SeriesIssue, s: ViewSeries): string {
  const key = LOCALE === 'en' ? undefined : SERIES_NOTES[issue.type];
  return key ? say(key, { indicator: indicatorOf(s) }) : issue.message;
}

function targetNote(issue: ViewWidgetIssue, series: ViewSeries[]): string {
  const key = LOCALE === 'en' ? undefined : TARGET_NOTES[issue.type];
  if (!key) return issue.message;
  const owner =
    series.find(
      (s) => s.indicatorId === issue.indicatorId && (issue.siteId === undefined || s.siteId === issue.siteId),
    ) ?? series.find((s) => s.indicatorId === issue.indicatorId);
  const named = owner?.targets.find((t) => t.targetId === issue.targetId)?.name;
  return say(key, {
    target: named || say('targetDefault'),
    indicator: owner ? indicatorOf(owner) : '',
  });
}

/** The notes under a widget (each sentence once), or null when there is none. */
export function notesList(series: ViewSeries[], widgetIssues: ViewWidgetIssue[]): HTMLUListElement | null {
  const texts = [
    ...series.flatMap((s) => (s.issues ?? []).map((issue) => seriesNote(issue, s))),
    ...widgetIssues.map((issue) => targetNote(issue, series)),
  ];
  if (!texts.length) return null;
  const notes = el('ul', 'notes');
  for (const text of new Set(texts)) notes.append(el('li', '', text));
  return notes;
}
