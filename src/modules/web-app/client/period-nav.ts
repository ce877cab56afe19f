// Around the entry screen's fields: links to the previous and next period and site, and the offer
// to restore a draft kept in this browser.
import { html } from 'htm/preact';
import { periodCount, periodLabel } from './format.js';
import { t } from './i18n/index.js';
import { Link } from './router.js';

/** Who may enter data: COLLECTOR and above (VIEWER reads only). */
export const canReport = (role: string) => ['OWNER', 'MANAGER', 'COLLECTOR'].includes(role);

/** The period before or after (year, periodUnit), across the year's end: { year, periodUnit }. */
export function stepPeriod(periodType: string, year: number, periodUnit: number, step: number) {
  const count = periodCount(periodType);
  const next = periodUnit + step;
  if (next < 1) return { year: year - 1, periodUnit: count };
  if (next > count) return { year: year + 1, periodUnit: 1 };
  return { year, periodUnit: next };
}

/**
 * Previous / next period (across the year's end, into a year the form is active on this site) and
 * previous / next site. `sites` are the sites of the form the person can read (the completeness
 * list, already limited to their sites); they are linked only when the person may report (a
 * VIEWER gets no site links: they could not enter anything there).
 */
export function PeriodNav({
  form,
  sites,
  activeYears,
  role,
  siteId,
  year,
  periodUnit,
}: {
  form: { id: string; periodType: string };
  sites: { siteId: string; siteName: string }[];
  activeYears: number[] | null;
  role: string;
  siteId: string;
  year: number;
  periodUnit: number;
}) {
  const href = (site: string, y: number, unit: number) => `/app/enter/${form.id}/${site}/${y}/${unit}`;
  const reportable = canReport(role) ? sites : [];
  const index = reportable.findIndex((s) => s.siteId === siteId);
  const before = index > 0 ? reportable[index - 1] : null;
  const after = index >= 0 && index < reportable.length - 1 ? reportable[index + 1] : null;
  type NavLink = { href: string; text: string; rel?: string };
  const link = (step: number): NavLink | null => {
    const to = stepPeriod(form.periodType, year, periodUnit, step);
    if (to.year !== year && !(activeYears ?? []).includes(to.year)) return null;
    const name = periodLabel(form.periodType, to.year, to.periodUnit);
    return {
      href: href(siteId, to.year, to.periodUnit),
      text: step < 0 ? `← ${name}` : `${name} →`,
      rel: step < 0 ? 'prev' : 'next',
    };
  };
  const periods = [link(-1), link(1)].filter((l): l is NavLink => l !== null);
  const others = [
    before ? { href: href(before.siteId, year, periodUnit), text: `← ${before.siteName}` } : null,
    after ? { href: href(after.siteId, year, periodUnit), text: `${after.siteName} →` } : null,
  ].filter((l): l is NavLink => l !== null);
  if (!periods.length && !others.length) return null;
  const list = (label: string, links: NavLink[]) =>
    links.length
      ? html`<div class="nav-group"><span class="nav-label">${label}</span>
          <ul>${links.map((l) => html`<li><${Link} href=${l.href}>${l.text}<//></li>`)}</ul></div>`
      : null;
  return html`<nav class="period-nav" aria-label=${t('nav.otherPeriods')}>
    ${list(t('nav.period'), periods)}
    ${list(t('nav.site'), others)}
  </nav>`;
}

/** "Restore 3 unsaved values from 10:42?", with the time (and the day, if not today) in the person's locale. */
export function DraftOffer({
  offer,
  locale,
  onRestore,
  onDiscard,
}: {
  offer: { changes: object; savedAt: string };
  locale: string;
  onRestore: () => void;
  onDiscard: () => void;
}) {
  const count = Object.keys(offer.changes).length;
  const at = new Date(offer.savedAt);
  const today = at.toDateString() === new Date().toDateString();
  const when = new Intl.DateTimeFormat(
    locale,
    today ? { timeStyle: 'short' } : { dateStyle: 'medium', timeStyle: 'short' },
  ).format(at);
  return html`<section class="draft-offer" aria-labelledby="draft-offer-title">
    <p id="draft-offer-title"><strong>${t('draft.restoreQuestion', { count, when })}</strong></p>
    <p class="muted">${t('draft.typedHere')}</p>
    <div class="row-actions">
      <button type="button" onClick=${onRestore}>${t('draft.restore')}</button>
      <button type="button" class="secondary" onClick=${onDiscard}>${t('draft.discard')}</button>
    </div>
  </section>`;
}
