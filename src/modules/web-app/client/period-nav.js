// Around the entry screen's fields: links to the previous and next period and site, and the offer
// to restore a draft kept in this browser.
import { html } from 'htm/preact';
import { periodCount, periodLabel } from './format.js';
import { Link } from './router.js';

/** Previous / next period of the year and previous / next site (the sites the person reports for, by name). */
export function PeriodNav({ form, sites, siteId, year, periodUnit }) {
  const href = (site, unit) => `/app/enter/${form.id}/${site}/${year}/${unit}`;
  const count = periodCount(form.periodType);
  const index = sites.findIndex((s) => s.siteId === siteId);
  const before = index > 0 ? sites[index - 1] : null;
  const after = index >= 0 && index < sites.length - 1 ? sites[index + 1] : null;
  const periods = [
    periodUnit > 1
      ? {
          href: href(siteId, periodUnit - 1),
          text: `← ${periodLabel(form.periodType, year, periodUnit - 1)}`,
          rel: 'prev',
        }
      : null,
    periodUnit < count
      ? {
          href: href(siteId, periodUnit + 1),
          text: `${periodLabel(form.periodType, year, periodUnit + 1)} →`,
          rel: 'next',
        }
      : null,
  ].filter(Boolean);
  const others = [
    before ? { href: href(before.siteId, periodUnit), text: `← ${before.siteName}` } : null,
    after ? { href: href(after.siteId, periodUnit), text: `${after.siteName} →` } : null,
  ].filter(Boolean);
  if (!periods.length && !others.length) return null;
  const list = (label, links) =>
    links.length
      ? html`<div class="nav-group"><span class="nav-label">${label}</span>
          <ul>${links.map((l) => html`<li><${Link} href=${l.href}>${l.text}<//></li>`)}</ul></div>`
      : null;
  return html`<nav class="period-nav" aria-label="Other periods and sites">
    ${list('Period', periods)}
    ${list('Site', others)}
  </nav>`;
}

/** "Restore 3 unsaved values from 10:42?", with the time (and the day, if not today) in the person's locale. */
export function DraftOffer({ offer, locale, onRestore, onDiscard }) {
  const count = Object.keys(offer.changes).length;
  const at = new Date(offer.savedAt);
  const today = at.toDateString() === new Date().toDateString();
  const when = new Intl.DateTimeFormat(
    locale,
    today ? { timeStyle: 'short' } : { dateStyle: 'medium', timeStyle: 'short' },
  ).format(at);
  return html`<section class="draft-offer" aria-labelledby="draft-offer-title">
    <p id="draft-offer-title"><strong>Restore ${count === 1 ? '1 unsaved value' : `${count} unsaved values`} from ${when}?</strong></p>
    <p class="muted">They were typed on this device and not saved yet.</p>
    <div class="row-actions">
      <button type="button" onClick=${onRestore}>Restore</button>
      <button type="button" class="secondary" onClick=${onDiscard}>Discard them</button>
    </div>
  </section>`;
}
