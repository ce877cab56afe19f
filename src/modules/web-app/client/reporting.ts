// My reporting: for each form and each of the person's sites, the periods of the year with their
// completeness (GET /completeness), the periods with rejected values to correct first
// (GET /form-submissions/values?status=REJECTED), then the overdue ones.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { answer, api, errorLines } from './api.js';
import type { Completeness, Form, QueuePage, SiteCompleteness } from './api-shapes.js';
import { formatDate, formatDay, periodLabel, STATUS_WORDS, shortPeriod } from './format.js';
import { t, textOf } from './i18n/index.js';
import { showMoment, showShortDay } from './review-format.js';
import { Link, navigate } from './router.js';
import { Badge, Errors, inputValue, Loading } from './ui.js';

/** How many overdue periods the list at the top names (the rest are marked in the grid). */
const OVERDUE_SHOWN = 5;

type Period = SiteCompleteness['periods'][number];
/** Rejected values of a period: how many, and the latest comment. */
type Rejection = { count: number; comment: string | null; at: string; by: string };
type Rejections = Map<string, Rejection>;

const TONES: Record<string, string> = {
  COMPLETE: 'good',
  NO_ACTIVITY: 'good',
  PARTIAL: 'warn',
  MISSING: 'bad',
};

function periodStart(periodType: string, year: number, unit: number) {
  if (periodType === 'MONTHLY') return Date.UTC(year, unit - 1, 1);
  if (periodType === 'QUARTERLY') return Date.UTC(year, (unit - 1) * 3, 1);
  return Date.UTC(year, 0, 1);
}

/** The first instant after the period (UTC). */
function periodEnd(periodType: string, year: number, unit: number) {
  if (periodType === 'MONTHLY') return Date.UTC(year, unit, 1);
  if (periodType === 'QUARTERLY') return Date.UTC(year, unit * 3, 1);
  return Date.UTC(year + 1, 0, 1);
}

const DAY_MS = 86_400_000;

/**
 * How a period reads on the home: a locked period is closed (never late), rejected values make it
 * "Needs correction", the running period is open (not missing) until its last day, a future one
 * not started; else its completeness status.
 */
export function periodState(
  form: { periodType: string },
  year: number,
  p: Period,
  rejected: Rejection | undefined,
  now: number,
) {
  if (p.locked) return { word: t('home.closed'), tone: 'muted', late: false, due: false };
  if (rejected) return { word: t('home.needsCorrection'), tone: 'bad', late: p.overdue, due: false };
  const unfinished = p.status === 'MISSING' || p.status === 'PARTIAL';
  if (unfinished && periodStart(form.periodType, year, p.periodUnit) > now)
    return { word: t('home.notStarted'), tone: 'muted', late: false, due: false };
  const end = periodEnd(form.periodType, year, p.periodUnit);
  if (unfinished && end > now)
    return {
      word: t('home.openUntil', { day: showShortDay(end - DAY_MS) }),
      tone: 'open',
      late: false,
      due: false,
    };
  return {
    word: STATUS_WORDS[p.status] ?? '',
    tone: TONES[p.status] ?? '',
    late: p.overdue,
    due: unfinished,
  };
}

/** Rejected values of the year on the person's sites, by form, site and period: how many and the latest comment. */
async function loadRejections(year: number): Promise<Rejections> {
  const found: Rejections = new Map();
  let after: string | null | undefined = null;
  do {
    const page: QueuePage = await answer(
      api.GET('/api/v1/form-submissions/values', {
        params: { query: { status: 'REJECTED', year, limit: 500, ...(after ? { after } : {}) } },
      }),
    );
    for (const v of page.items) {
      const key = `${v.formId}/${v.siteId}/${v.periodUnit}`;
      const entry = found.get(key) ?? { count: 0, comment: null, at: '', by: '' };
      entry.count++;
      const review = v.lastReview;
      if (review?.comment && review.at > entry.at)
        Object.assign(entry, { comment: review.comment, at: review.at, by: review.userName });
      found.set(key, entry);
    }
    after = page.nextCursor;
  } while (after);
  return found;
}

export const enterHref = (formId: string, siteId: string, year: number, unit: number) =>
  `/app/enter/${formId}/${siteId}/${year}/${unit}`;

/** Loads the forms active on the person's sites in `year`, each with its completeness. */
async function loadReporting(year: number) {
  const [forms, formSites] = await Promise.all([
    answer(api.GET('/api/v1/forms')),
    answer(api.GET('/api/v1/form-sites', { params: { query: { year } } })),
  ]);
  const active = new Set(formSites.map((fs) => fs.formId));
  const shown = forms.filter((f) => active.has(f.id));
  const [completeness, rejections] = await Promise.all([
    Promise.all(
      shown.map((f) =>
        answer(api.GET('/api/v1/completeness', { params: { query: { formId: f.id, year, limit: 1000 } } })),
      ),
    ),
    loadRejections(year),
  ]);
  return shown.map((form, i) => ({ form, completeness: completeness[i] as Completeness, rejections }));
}

export function MyReporting({ query }: { query: URLSearchParams }) {
  const thisYear = new Date().getFullYear();
  const year = Number(query.get('year')) || thisYear;
  const onlyForm = query.get('form');
  const [data, setData] = useState<Awaited<ReturnType<typeof loadReporting>> | null>(null);
  const [errors, setErrors] = useState<string[]>([]);

  useEffect(() => {
    let current = true;
    setData(null);
    setErrors([]);
    loadReporting(year)
      .then((loaded) => current && setData(loaded))
      .catch((error) => current && setErrors(errorLines(error)));
    return () => {
      current = false;
    };
  }, [year]);

  const years = [thisYear + 1, thisYear, thisYear - 1, thisYear - 2];
  if (!years.includes(year)) years.push(year);
  const chooseYear = (e: Event) =>
    navigate(`/app?year=${inputValue(e)}${onlyForm ? `&form=${onlyForm}` : ''}`);
  const entries = (data ?? []).filter((d) => !onlyForm || d.form.id === onlyForm);
  const now = Date.now();
  // A period with rejected values is listed once, under "Needs correction" (it is late there too).
  const overdue = entries.flatMap(({ form, completeness, rejections }) =>
    completeness.items.flatMap((site) =>
      site.periods
        .filter((p) => p.overdue && !p.locked && !rejections.has(`${form.id}/${site.siteId}/${p.periodUnit}`))
        .map((p) => ({ form, site, period: p })),
    ),
  );
  const corrections = entries.flatMap(({ form, completeness, rejections }) =>
    completeness.items.flatMap((site) =>
      site.periods.flatMap((p) => {
        const rejected = rejections.get(`${form.id}/${site.siteId}/${p.periodUnit}`);
        return rejected && !p.locked ? [{ form, site, period: p, rejected }] : [];
      }),
    ),
  );
  overdue.sort((a, b) => (a.period.dueAt ?? '').localeCompare(b.period.dueAt ?? ''));

  return html`<main id="main">
    <div class="title-row">
      <h1>${t('nav.reporting')}</h1>
      <div class="field inline">
        <label for="reporting-year">${t('home.year')}</label>
        <select id="reporting-year" value=${year} onChange=${chooseYear}>
          ${years.sort((a, b) => b - a).map((y) => html`<option value=${y}>${y}</option>`)}
        </select>
      </div>
    </div>
    <${Errors} lines=${errors} />
    ${!data && !errors.length ? html`<${Loading} what=${t('loading.reporting')} />` : null}
    ${
      data && entries.length === 0
        ? html`<p class="empty">${t('home.noForms', { year: String(year) })}</p>`
        : null
    }
    ${onlyForm && data ? html`<p><${Link} href=${`/app?year=${year}`}>${t('home.allForms')}<//></p>` : null}
    ${
      corrections.length
        ? html`<section class="card attention" aria-labelledby="corrections-title">
            <h2 id="corrections-title">${t('home.needsCorrectionCount', { count: corrections.length })}</h2>
            <ul class="overdue-list corrections">
              ${corrections.map(
                ({ form, site, period, rejected }) => html`<li>
                  <${Link} href=${enterHref(form.id, site.siteId, year, period.periodUnit)}>
                    ${textOf(form, 'name')} · ${site.siteName} · ${periodLabel(form.periodType, year, period.periodUnit)}
                  <//>
                  <span> ${t('home.valuesRejected', { count: rejected.count })}</span>
                  ${rejected.comment ? html`<span class="rejection-comment">: <q>${rejected.comment}</q> <span class="muted">(${rejected.by}, ${showMoment(rejected.at)})</span></span>` : null}
                </li>`,
              )}
            </ul>
          </section>`
        : null
    }
    ${
      overdue.length
        ? html`<section class="card attention" aria-labelledby="overdue-title">
            <h2 id="overdue-title">${t('home.overdueCount', { count: overdue.length })}</h2>
            <ul class="overdue-list">
              ${overdue.slice(0, OVERDUE_SHOWN).map(
                ({ form, site, period }) => html`<li>
                  <${Link} href=${enterHref(form.id, site.siteId, year, period.periodUnit)}>
                    ${textOf(form, 'name')} · ${site.siteName} · ${periodLabel(form.periodType, year, period.periodUnit)}
                  <//>
                  <span class="muted"> ${t('home.statusDue', { status: STATUS_WORDS[period.status], date: formatDate(period.dueAt) })}</span>
                </li>`,
              )}
            </ul>
            ${overdue.length > OVERDUE_SHOWN ? html`<p class="muted">${t('home.overdueMore', { count: overdue.length - OVERDUE_SHOWN })}</p>` : null}
          </section>`
        : null
    }
    ${entries.map(({ form, completeness, rejections }) => html`<${FormCard} form=${form} completeness=${completeness} rejections=${rejections} year=${year} now=${now} />`)}
  </main>`;
}

function FormCard({
  form,
  completeness,
  rejections,
  year,
  now,
}: {
  form: Form;
  completeness: Completeness;
  rejections: Rejections;
  year: number;
  now: number;
}) {
  const totals = completeness.totals;
  return html`<section class="card" aria-labelledby=${`form-${form.id}`}>
    <h2 id=${`form-${form.id}`}>${textOf(form, 'name')}</h2>
    <p class="muted">
      ${t('home.reported', { actual: totals.actualReports, expected: totals.expectedReports })}
      ${completeness.dueDays !== null ? ` · ${t('home.dueDays', { days: completeness.dueDays })}` : ''}
    </p>
    ${completeness.items.map(
      (site) => html`<div class="site">
        <h3>${site.siteName}</h3>
        <ul class="periods">
          ${site.periods.map((p) => {
            const rejected = rejections.get(`${form.id}/${site.siteId}/${p.periodUnit}`);
            const state = periodState(form, year, p, rejected, now);
            return html`<li class=${`period tone-${state.tone}${state.late ? ' overdue' : ''}`}>
              <${Link} href=${enterHref(form.id, site.siteId, year, p.periodUnit)}>
                <span class="period-name">${shortPeriod(form.periodType, year, p.periodUnit)}${form.periodType === 'YEARLY' ? null : html`<span class="visually-hidden"> ${year}</span>`}</span>
                <span class="period-status">${state.word}</span>
                ${rejected && !p.locked ? html`<span class="period-note">${t('home.valuesRejected', { count: rejected.count })}</span>` : null}
                ${state.late ? html`<${Badge} tone="bad">${t('home.late')}<//>` : null}
                ${state.due && p.dueAt ? html`<span class="period-due">${t('home.due', { date: formatDay(p.dueAt) })}</span>` : null}
              <//>
            </li>`;
          })}
        </ul>
      </div>`,
    )}
    ${completeness.pagination?.hasMore ? html`<p class="muted">${t('home.firstSites', { count: completeness.items.length })}</p>` : null}
  </section>`;
}
