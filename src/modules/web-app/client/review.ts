// Review (managers): opens on what awaits review across the person's forms and sites, oldest
// first (GET /form-submissions/values); filters by form, site, year, period and status; shows
// every value as a reviewer must check it (file link, activity rows, option labels, the latest
// review comment); approves or rejects one value, a selection, or everything the filters match
// (POST /form-submissions/values/review, all or nothing per call).
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { answer, api, errorLines } from './api.js';
import type { Form, FormElement, QueueFilters, QueueItem, QueuePage, Site, Unit } from './api-shapes.js';
import { REVIEW_WORDS } from './format.js';
import { t } from './i18n/index.js';
import { periodsIn, periodWords, showMoment, showNumber } from './review-format.js';
import { History, StatusShown, ValueShown } from './review-values.js';
import { navigate } from './router.js';
import { Errors, inputValue, Loading } from './ui.js';

const PAGE = 50;
/** The service's largest bulk review. */
const BULK = 500;

/** The filters as the address holds them (text; '' for none). */
type Filters = { status: string | null; formId: string; siteId: string; year: string; periodUnit: string };

/** The query of GET /form-submissions/values: the filters given, in this order (a kept answer's key). */
const queryOf = (f: Filters, after: string | null, limit: number): QueueFilters => ({
  ...(f.status ? { status: f.status as QueueFilters['status'] } : {}),
  ...(f.formId ? { formId: f.formId } : {}),
  ...(f.siteId ? { siteId: f.siteId } : {}),
  ...(f.year ? { year: Number(f.year) } : {}),
  ...(f.periodUnit ? { periodUnit: Number(f.periodUnit) } : {}),
  limit,
  ...(after ? { after } : {}),
});

const queuePage = (filters: Filters, after: string | null, limit = PAGE) =>
  answer(api.GET('/api/v1/form-submissions/values', { params: { query: queryOf(filters, after, limit) } }));

/** Every value matching the filters (pages of 500), for "approve everything shown". */
async function everyMatch(filters: Filters) {
  const items: QueueItem[] = [];
  let after: string | null = null;
  do {
    const page: QueuePage = await queuePage(filters, after, BULK);
    items.push(...page.items);
    after = page.nextCursor;
  } while (after);
  return items;
}

type Context = {
  forms: Form[];
  formById: Map<string, Form>;
  elements: Map<string, FormElement>;
  sites: Site[];
  units: Map<string, Unit>;
};

export function Review({ query }: { query: URLSearchParams }) {
  const thisYear = new Date().getFullYear();
  const formId = query.get('form') ?? '';
  const siteId = query.get('site') ?? '';
  const year = query.get('year') ?? '';
  const period = query.get('period') ?? '';
  const status = query.has('status') ? query.get('status') : 'COMPLETED';

  const [context, setContext] = useState<Context | null>(null);
  const [list, setList] = useState<QueuePage | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [selected, setSelected] = useState(new Set<string>());
  const [comment, setComment] = useState('');
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const [confirmAll, setConfirmAll] = useState(false);

  const setQuery = (change: Record<string, string>) => {
    const next: Record<string, string | null> = {
      form: formId,
      site: siteId,
      year,
      period,
      status,
      ...change,
    };
    const params = new URLSearchParams(
      Object.entries(next).filter(([k, v]) => v !== '' || k === 'status') as [string, string][],
    );
    if (next.status === 'COMPLETED') params.delete('status');
    navigate(`/app/review${params.size ? `?${params}` : ''}`, { replace: true });
  };

  useEffect(() => {
    Promise.all([
      answer(api.GET('/api/v1/forms')),
      answer(api.GET('/api/v1/sites')),
      answer(api.GET('/api/v1/units')),
    ])
      .then(([forms, sites, units]) =>
        setContext({
          forms,
          formById: new Map(forms.map((f) => [f.id, f])),
          elements: new Map(forms.flatMap((f) => f.elements.map((e) => [e.id, e]))),
          sites: [...sites].sort((a, b) => a.name.localeCompare(b.name)),
          units: new Map(units.map((u) => [u.id, u])),
        }),
      )
      .catch((error) => setErrors(errorLines(error)));
  }, []);

  // The period filter needs one period type: the chosen form's, or the one all forms share.
  const types = new Set((context?.forms ?? []).map((f) => f.periodType));
  const periodType = formId
    ? context?.formById.get(formId)?.periodType
    : types.size === 1
      ? [...types][0]
      : null;
  const filters: Filters = {
    status,
    formId,
    siteId,
    year,
    periodUnit: periodType && period ? period : '',
  };

  // Only the latest load may show its rows (filters change faster than answers come back).
  const latest = useRef(0);
  const load = async () => {
    const ticket = ++latest.current;
    const page = await queuePage(filters, null);
    if (ticket === latest.current) setList(page);
  };
  const more = async () => {
    const ticket = latest.current;
    try {
      const page = await queuePage(filters, list?.nextCursor ?? null);
      if (ticket === latest.current) setList({ ...page, items: [...(list?.items ?? []), ...page.items] });
    } catch (error) {
      setErrors(errorLines(error));
    }
  };
  useEffect(() => {
    setList(null);
    setSelected(new Set());
    setConfirmAll(false);
    load().catch((error) => setErrors(errorLines(error)));
  }, [formId, siteId, year, period, status]);

  const review = async (ids: string[], outcome: 'APPROVED' | 'REJECTED') => {
    setErrors([]);
    setDone('');
    if (outcome === 'REJECTED' && !comment.trim()) {
      setErrors([t('review.commentRequired')]);
      document.getElementById('review-comment')?.focus();
      return;
    }
    setBusy(true);
    try {
      let reviewed = 0;
      for (let i = 0; i < ids.length; i += BULK) {
        const result = await answer(
          api.POST('/api/v1/form-submissions/values/review', {
            body: {
              ids: ids.slice(i, i + BULK),
              status: outcome,
              ...(comment.trim() ? { comment: comment.trim() } : {}),
            },
          }),
        );
        reviewed += result.reviewed + result.unchanged;
      }
      setSelected(new Set());
      setConfirmAll(false);
      setComment('');
      await load();
      setDone(t(outcome === 'APPROVED' ? 'review.doneApproved' : 'review.doneRejected', { count: reviewed }));
    } catch (error) {
      setErrors(errorLines(error));
    } finally {
      setBusy(false);
    }
  };
  const approveAll = async () => {
    setBusy(true);
    try {
      const ids = (await everyMatch(filters))
        .filter((i) => i.status !== 'APPROVED')
        .map((i) => i.formElementSubmissionId);
      setBusy(false);
      await review(ids, 'APPROVED');
    } catch (error) {
      setErrors(errorLines(error));
      setBusy(false);
    }
  };

  if (!context)
    return html`<main id="main"><h1>${t('nav.review')}</h1><${Errors} lines=${errors} /><${Loading} what=${t('loading.forms')} /></main>`;
  const items = list?.items ?? [];
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const allChecked = items.length > 0 && items.every((r) => selected.has(r.formElementSubmissionId));
  const years = [thisYear + 1, thisYear, thisYear - 1, thisYear - 2, thisYear - 3];
  if (year && !years.includes(Number(year))) years.push(Number(year));
  const heading = t('review.heading', { status: status || 'ALL' });
  const periodShown = Boolean(filters.periodUnit);
  return html`<main id="main">
    <h1>${t('nav.review')}</h1>
    <div class="toolbar review-filters">
      <div class="field"><label for="review-status">${t('review.status')}</label>
        <select id="review-status" value=${status} onChange=${(e: Event) => setQuery({ status: inputValue(e) })}>
          ${Object.entries(REVIEW_WORDS).map(([value, word]) => html`<option value=${value}>${word}</option>`)}
          <option value="">${t('review.all')}</option>
        </select></div>
      <div class="field"><label for="review-form">${t('review.form')}</label>
        <select id="review-form" value=${formId} onChange=${(e: Event) => setQuery({ form: inputValue(e), period: '' })}>
          <option value="">${t('review.allForms')}</option>
          ${context.forms.map((f) => html`<option value=${f.id}>${f.name}</option>`)}
        </select></div>
      <div class="field"><label for="review-site">${t('nav.site')}</label>
        <select id="review-site" value=${siteId} onChange=${(e: Event) => setQuery({ site: inputValue(e) })}>
          <option value="">${t('review.allSites')}</option>
          ${context.sites.map((s) => html`<option value=${s.id}>${s.name}</option>`)}
        </select></div>
      <div class="field"><label for="review-year">${t('home.year')}</label>
        <select id="review-year" value=${year} onChange=${(e: Event) => setQuery({ year: inputValue(e) })}>
          <option value="">${t('review.allYears')}</option>
          ${years.sort((a, b) => b - a).map((y) => html`<option value=${y}>${y}</option>`)}
        </select></div>
      ${
        periodType && periodsIn(periodType) > 1
          ? html`<div class="field"><label for="review-period">${t('nav.period')}</label>
            <select id="review-period" value=${period} onChange=${(e: Event) => setQuery({ period: inputValue(e) })}>
              <option value="">${t('review.allPeriods')}</option>
              ${Array.from({ length: periodsIn(periodType) }, (_, i) => i + 1).map(
                (p) => html`<option value=${p}>${periodWords(periodType, Number(year) || null, p)}</option>`,
              )}
            </select></div>`
          : null
      }
    </div>
    <div class="card review-actions">
      <div class="field"><label for="review-comment">${t('review.comment')}</label>
        <textarea id="review-comment" rows="2" value=${comment} onInput=${(e: Event) => setComment(inputValue(e))}></textarea></div>
      <div class="row-actions">
        <button type="button" disabled=${busy || selected.size === 0} onClick=${() => review([...selected], 'APPROVED')}>${t('review.approveSelected', { count: selected.size })}</button>
        <button type="button" class="danger" disabled=${busy || selected.size === 0} onClick=${() => review([...selected], 'REJECTED')}>${t('review.rejectSelected', { count: selected.size })}</button>
        ${
          list && list.total > 0 && status !== 'APPROVED' && !confirmAll
            ? html`<button type="button" class="secondary" disabled=${busy} onClick=${() => setConfirmAll(true)}>${t('review.approveAllShown', { count: list.total })}</button>`
            : null
        }
      </div>
      ${
        confirmAll
          ? html`<div class="confirm" role="group" aria-labelledby="confirm-all">
              <p id="confirm-all">${t('review.confirmAll', { count: list?.total ?? 0 })}</p>
              <button type="button" class="confirm-button" disabled=${busy} onClick=${approveAll}>${t('review.approveCount', { count: list?.total ?? 0 })}</button>
              <button type="button" class="secondary confirm-button" onClick=${() => setConfirmAll(false)}>${t('review.cancel')}</button>
            </div>`
          : null
      }
      <${Errors} lines=${errors} />
      <p class="saved" role="status" aria-live="polite">${done}</p>
    </div>
    <h2 class="review-heading">${heading}${list ? html` <span class="muted">(${showNumber(list.total)})</span>` : null}</h2>
    ${list === null ? html`<${Loading} what=${t('loading.values')} />` : null}
    ${list && items.length === 0 ? html`<p class="empty">${t(status === 'COMPLETED' ? 'review.emptyAwaiting' : 'review.emptyFilters')}</p>` : null}
    ${
      items.length
        ? html`<div class="table-wrap"><table class="stack review-table">
          <caption class="visually-hidden">${t('review.caption', { heading })}</caption>
          <thead><tr>
            <th scope="col"><input type="checkbox" id="review-all" aria-label=${t('review.selectAll')} checked=${allChecked}
              onChange=${() => setSelected(allChecked ? new Set() : new Set(items.map((r) => r.formElementSubmissionId)))} /></th>
            <th scope="col">${t('review.where')}</th><th scope="col">${t('review.element')}</th><th scope="col">${t('field.value')}</th><th scope="col">${t('review.status')}</th>
            <th scope="col">${t('review.enteredBy')}</th><th scope="col">${t('review.actions')}</th>
          </tr></thead>
          <tbody>
            ${items.map((r) => {
              const id = r.formElementSubmissionId;
              const element = context.elements.get(r.elementId);
              const when = periodWords(r.periodType, r.year, r.periodUnit);
              const name = periodShown
                ? t('review.valueName', { element: r.elementLabel, site: r.siteName })
                : t('review.valueNameWhen', { element: r.elementLabel, site: r.siteName, period: when });
              return html`<tr data-value=${id}>
                <td data-label=${t('review.select')}><input type="checkbox" id=${`pick-${id}`} aria-label=${t('review.selectOne', { name })} checked=${selected.has(id)} onChange=${() => toggle(id)} /></td>
                <td data-label=${t('review.where')}><span>${r.siteName}<br /><span class="muted">${r.formName} · ${when}</span></span></td>
                <td data-label=${t('review.element')}>${r.elementLabel}</td>
                <td data-label=${t('field.value')} class="value-cell"><${ValueShown} item=${r} element=${element} units=${context.units} /></td>
                <td data-label=${t('review.status')}><${StatusShown} item=${r} /></td>
                <td data-label=${t('review.enteredBy')}><span>${r.userName || r.userEmail}<br /><span class="muted">${showMoment(r.recordedAt)}</span></span></td>
                <td class="actions" data-label="">
                  ${r.status !== 'APPROVED' ? html`<button type="button" class="secondary small" disabled=${busy} aria-label=${t('review.approveOne', { name })} onClick=${() => review([id], 'APPROVED')}>${t('review.approve')}</button>` : null}
                  ${r.status !== 'REJECTED' ? html`<button type="button" class="secondary small danger-text" disabled=${busy} aria-label=${t('review.rejectOne', { name })} onClick=${() => review([id], 'REJECTED')}>${t('review.reject')}</button>` : null}
                  <button type="button" class="secondary small" aria-expanded=${open === id ? 'true' : 'false'} aria-label=${t('review.historyOf', { name })}
                    onClick=${() => setOpen(open === id ? null : id)}>${t('review.history')}</button>
                  ${open === id ? html`<${History} id=${id} item=${r} element=${element} units=${context.units} />` : null}
                </td>
              </tr>`;
            })}
          </tbody>
        </table></div>`
        : null
    }
    ${
      list?.nextCursor
        ? html`<p><button type="button" class="secondary" onClick=${more}>${t('review.showMore', { count: list.total - items.length })}</button></p>`
        : null
    }
  </main>`;
}
