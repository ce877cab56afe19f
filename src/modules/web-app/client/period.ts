// Enter a period: every element of the form for one site and period, saved in one
// POST /form-submissions. Numbers are read in the person's locale or refused; the element's rules
// are checked when a field is left, the service's check asked for what only it knows (outliers,
// locks, rights); every keystroke is kept as a draft in this browser until the service stores it.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, answer, api, errorLines, isOffline } from './api.js';
import type { Me } from './api-shapes.js';
import { changedDrafts, draftKey, readDraft, restorable, writeDraft } from './drafts.js';
import { formatDate, periodLabel, STATUS_WORDS } from './format.js';
import { t, textOf } from './i18n/index.js';
import { browserLocale } from './numbers.js';
import { forget as forgetQueued, isPendingFile, outboxItem } from './offline/outbox.js';
import { QueuedNotice, queueSave, useQueued } from './offline/period-offline.js';
import { offlineTexts } from './offline/texts.js';
import {
  afterPointer,
  sameNumber,
  sendableValues,
  watchPointer,
  withoutPendingFiles,
} from './period-checks.js';
import {
  changedValues,
  type Draft,
  type Drafts,
  draftsFrom,
  loadPeriod,
  type PeriodData,
  type PlacedIssues,
  placeIssues,
} from './period-data.js';
import { ElementField } from './period-fields.js';
import { DraftOffer, PeriodNav } from './period-nav.js';
import { Link, useLeaveGuard } from './router.js';
import { localIssues } from './rules.js';
import { Badge, Errors, Loading } from './ui.js';

const NO_ISSUES: PlacedIssues = { byKey: {}, general: [] };
const omit = <V>(object: Record<string, V>, key: string) =>
  Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));

type Offer = { savedAt: string; changes: Drafts };

export function EnterPeriod({
  me,
  formId,
  siteId,
  year,
  periodUnit,
}: {
  me: Me;
  formId: string;
  siteId: string;
  year: number;
  periodUnit: number;
}) {
  const [data, setData] = useState<PeriodData | null>(null);
  const [drafts, setDrafts] = useState<Drafts | null>(null);
  const [original, setOriginal] = useState<Drafts | null>(null);
  const [loadErrors, setLoadErrors] = useState<string[]>([]);
  // The service's issues (from its check or a refused save), and the fields whose own checks show.
  const [issues, setIssues] = useState(NO_ISSUES);
  const [shown, setShown] = useState<Record<string, boolean>>({});
  const [offer, setOffer] = useState<Offer | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  // The summary above Save appears once a save was tried (before, errors stand beside their fields).
  const [attempted, setAttempted] = useState(false);
  const locale = browserLocale();
  const key = draftKey({
    organizationId: me.organization.id,
    userId: me.user.id,
    formId,
    siteId,
    year,
    periodUnit,
  });

  // Only the latest load may fill the screen (the person may move to another period meanwhile).
  const latest = useRef(0);
  const current = useRef<{
    data: PeriodData | null;
    drafts: Drafts | null;
    original: Drafts | null;
    offer: Offer | null;
  }>({
    data: null,
    drafts: null,
    original: null,
    offer: null,
  });
  current.current = { data, drafts, original, offer };
  const load = async ({ keep = {} as Drafts } = {}) => {
    const ticket = ++latest.current;
    const [loaded, kept, queuedItem] = await Promise.all([
      loadPeriod({ formId, siteId, year, periodUnit }),
      readDraft(key),
      outboxItem(key),
    ]);
    if (ticket !== latest.current) return;
    // Values queued on this device (offline/outbox.js) show as typed, not as a draft to restore.
    const applied = queuedItem ? { ...(kept?.changes ?? {}), ...keep } : keep;
    const fresh = draftsFrom(loaded);
    const left = restorable({ changes: applied }, fresh);
    setData(loaded);
    setOriginal(fresh);
    setDrafts({ ...fresh, ...left });
    const offered = restorable(kept, fresh);
    for (const k of Object.keys(left)) delete offered[k];
    // A number kept as typed ("4,321.5") that the service now stores ("4321.5") is no longer unsaved.
    for (const element of loaded.form.elements) {
      const draft = offered[element.key];
      if (element.type === 'NUMBER' && draft && sameNumber(draft, fresh[element.key]))
        delete offered[element.key];
    }
    setOffer(kept && Object.keys(offered).length ? { savedAt: kept.savedAt, changes: offered } : null);
    if (queuedItem?.state === 'refused') setIssues(placeIssues(queuedItem.issues, queuedItem.targets));
  };
  // The queue's answer while the screen is open: stored (reload), refused (beside the fields).
  const queued = useQueued(key, (answered) => {
    if (answered?.state === 'refused') {
      setSaved(null);
      return setIssues(placeIssues(answered.issues, answered.targets));
    }
    load().catch(() => undefined);
    setSaved(answered ? null : offlineTexts.sent);
  });
  useEffect(() => {
    setData(null);
    setLoadErrors([]);
    setIssues(NO_ISSUES);
    setShown({});
    setSaved(null);
    setAttempted(false);
    load().catch((error) => setLoadErrors(errorLines(error)));
  }, [formId, siteId, year, periodUnit]);

  // Keep the draft as it is typed (a pending offer stays kept until it is answered).
  const changes = drafts && original ? changedDrafts(drafts, original) : {};
  const dirty = Object.keys(changes).length > 0;
  // Written on every change (IndexedDB keeps the writes in order), so nothing waits in memory when
  // the tab closes, the session ends or the person moves to another period.
  useEffect(() => {
    if (!drafts || !original) return;
    writeDraft(key, { ...(offer?.changes ?? {}), ...changedDrafts(drafts, original) });
  }, [drafts, original, offer]);
  const waiting =
    queued?.state === 'waiting' &&
    Object.entries(changes).every(([k, d]) => JSON.stringify(queued.drafts?.[k]) === JSON.stringify(d));
  useLeaveGuard(dirty && !waiting, t('period.leaveQuestion'));

  // The service's check, asked when a changed field is left (debounced; only the latest answer counts).
  const checkTicket = useRef(0);
  const checkTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const runCheck = async () => {
    const now = current.current;
    const ticket = ++checkTicket.current;
    const sendable = withoutPendingFiles(sendableValues(now, { year, periodUnit, locale }));
    if (!sendable.values.length) return setIssues(NO_ISSUES);
    if (!navigator.onLine) return null;
    try {
      const checked = await answer(
        api.POST('/api/v1/form-submissions/check', {
          body: { formId, siteId, year, values: sendable.values },
        }),
      );
      if (ticket !== checkTicket.current) return;
      setIssues(placeIssues(checked.issues ?? [], sendable.targets));
      return checked.issues ?? [];
    } catch (error) {
      // A service without the check (404) or a passing failure: the save checks everything again.
      const status = (error as { status?: number }).status;
      if (status !== 404 && status !== 401) console.warn('check failed', status);
      return null;
    }
  };
  const leave = (elementKey: string) =>
    afterPointer(() => {
      setShown((all) => (all[elementKey] ? all : { ...all, [elementKey]: true }));
      if (
        !current.current.drafts ||
        !(elementKey in changedDrafts(current.current.drafts, current.current.original))
      )
        return;
      clearTimeout(checkTimer.current);
      checkTimer.current = setTimeout(runCheck, 300);
    });
  useEffect(watchPointer, []);

  if (loadErrors.length) return html`<main id="main"><${Back} /><${Errors} lines=${loadErrors} /></main>`;
  if (!data || !drafts || !original)
    return html`<main id="main"><${Loading} what=${t('loading.period')} /></main>`;

  const { form, site, period, lock } = data;
  const locked = Boolean(lock) || Boolean(period?.locked);
  const title = periodLabel(form.periodType, year, periodUnit);
  const context = { formId, siteId, year, periodUnit, periodType: form.periodType, title, locale };
  const update = (elementKey: string, change: Partial<Draft>) => {
    setSaved(null);
    // What the service said about the value is stale once the value changes (not its comment).
    if (Object.keys(change).some((k) => k !== 'comment')) {
      setIssues((all) => ({ ...all, byKey: omit(all.byKey, elementKey) }));
    }
    setDrafts((all) => ({ ...all, [elementKey]: { ...all?.[elementKey], ...change } }));
  };
  const restore = () => {
    setDrafts((all) => {
      const next = { ...all };
      for (const [k, draft] of Object.entries(offer?.changes ?? {})) if (!(k in changes)) next[k] = draft;
      return next;
    });
    setShown((all) => ({
      ...all,
      ...Object.fromEntries(Object.keys(offer?.changes ?? {}).map((k) => [k, true])),
    }));
    setOffer(null);
  };

  // The issues beside each field: its own rules once left (or on save), then the service's.
  const own = Object.fromEntries(
    form.elements.map((e) => [e.key, shown[e.key] ? localIssues(e, drafts[e.key] ?? {}, data, context) : []]),
  );
  const byKey = Object.fromEntries(
    form.elements.map((e) => {
      const mine = own[e.key] ?? [];
      const theirs = (issues.byKey[e.key] ?? []).filter((i) => !mine.some((m) => m.message === i.message));
      return [e.key, [...mine, ...theirs]];
    }),
  );
  const focusFirst = (selector?: string) =>
    requestAnimationFrame(() =>
      document.querySelector<HTMLElement>(selector ?? '[aria-invalid="true"], .outlier textarea')?.focus(),
    );

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(null);
    setAttempted(true);
    const changedKeys = Object.keys(changes);
    const allShown = { ...shown, ...Object.fromEntries(changedKeys.map((k) => [k, true])) };
    setShown(allShown);
    const refused = form.elements.filter(
      (e) => changedKeys.includes(e.key) && localIssues(e, drafts[e.key] ?? {}, data, context).length,
    );
    if (refused.length) {
      setIssues(NO_ISSUES);
      return focusFirst();
    }
    const { values, targets } = changedValues(data, drafts, original, periodUnit);
    const markers = form.elements.filter(
      (e) => e.type === 'ACTIVITY' && drafts[e.key]?.noActivity !== original[e.key]?.noActivity,
    );
    setSaving(true);
    let stored = false;
    // Kept on this device and sent when the connection is back (offline/outbox.js); a file picked
    // offline is uploaded by the queue too.
    const queueHere = async () => {
      const marks = markers.map((e) => ({
        key: e.key,
        marked: Boolean(drafts[e.key]?.noActivity && drafts[e.key]?.rows?.length === 0),
      }));
      await queueSave({
        ...{ key, data, drafts, formId, siteId, year, periodUnit },
        ...(stored ? { values: [], targets: [] } : { values, targets }),
        markers: marks,
      });
      setIssues(NO_ISSUES);
      setAttempted(false);
      setSaved(
        offlineTexts.queued(new Intl.DateTimeFormat(locale, { timeStyle: 'short' }).format(new Date())),
      );
    };
    try {
      if (values.length === 0 && markers.length === 0) {
        setSaved(t('period.nothingChanged'));
        return;
      }
      if (!navigator.onLine || values.some((v) => isPendingFile(v.value))) return await queueHere();
      if (values.length) {
        // Outliers need the person's word before anything is saved.
        const checked = await runCheck();
        const placed = placeIssues(checked ?? [], targets);
        const blocking = Object.entries(placed.byKey).filter(([k, list]) =>
          list.some((i) => i.type !== 'outlier' || (!i.acknowledged && !drafts[k]?.comment?.trim())),
        );
        if (blocking.length) return focusFirst();
        await answer(api.POST('/api/v1/form-submissions', { body: { formId, siteId, year, values } }));
        stored = true;
      }
      for (const element of markers) {
        const body = { formId, key: element.key, siteId, year, periodUnit };
        const marked = drafts[element.key]?.noActivity && drafts[element.key]?.rows?.length === 0;
        await answer(
          marked
            ? api.POST('/api/v1/activities/no-activity/mark', { body })
            : api.POST('/api/v1/activities/no-activity/unmark', { body }),
        );
      }
      setIssues(NO_ISSUES);
      setAttempted(false);
      // Stored: the draft keeps only an offer not answered yet.
      await writeDraft(key, offer?.changes ?? {});
      await forgetQueued(key);
      await load();
      setSaved(
        t('period.savedAt', {
          time: new Intl.DateTimeFormat(locale, { timeStyle: 'short' }).format(new Date()),
        }),
      );
    } catch (error) {
      if (isOffline(error)) return await queueHere();
      if (error instanceof ApiError && error.status === 400 && error.issues.length) {
        setIssues(placeIssues(error.issues, targets));
        focusFirst();
      } else {
        setIssues({ byKey: {}, general: errorLines(error) });
      }
      // Values the service stored leave the draft; what it did not store stays.
      if (stored) {
        const sent = new Set(targets.map((t) => t.key));
        const unsaved = Object.fromEntries(Object.entries(changes).filter(([k]) => !sent.has(k)));
        await writeDraft(key, { ...(offer?.changes ?? {}), ...unsaved });
        await load({ keep: unsaved }).catch(() => {});
      }
    } finally {
      setSaving(false);
    }
  };

  const invalidKeys = form.elements.filter((e) => byKey[e.key]?.some((i) => i.type !== 'outlier')).length;
  const uncommented = form.elements.filter(
    (e) =>
      byKey[e.key]?.some((i) => i.type === 'outlier' && !i.acknowledged) && !drafts[e.key]?.comment?.trim(),
  ).length;
  const summary = [
    ...(invalidKeys && attempted ? [t('period.summaryInvalid', { count: invalidKeys })] : []),
    ...(uncommented && attempted ? [t('period.summaryUnusual', { count: uncommented })] : []),
    ...issues.general,
  ];
  return html`<main id="main" class="period-screen">
    <${Back} year=${year} />
    <h1>${t('period.title', { form: textOf(form, 'name'), period: title })}</h1>
    <p class="subtitle">
      <span>${site?.siteName ?? t('nav.site')}</span>
      ${period ? html` · <${Badge} tone=${period.status === 'COMPLETE' || period.status === 'NO_ACTIVITY' ? 'good' : period.status === 'PARTIAL' ? 'warn' : 'bad'}>${STATUS_WORDS[period.status]}<//>` : null}
      ${period?.dueAt ? html` · ${t('home.due', { date: formatDate(period.dueAt) })}` : null}
      ${period?.overdue ? html` · <${Badge} tone="bad">${t('home.late')}<//>` : null}
    </p>
    <${PeriodNav} form=${form} sites=${data.sites} activeYears=${data.activeYears} role=${me.role} siteId=${siteId} year=${year} periodUnit=${periodUnit} />
    ${offer && !locked ? html`<${DraftOffer} offer=${offer} locale=${locale} onRestore=${restore} onDiscard=${() => setOffer(null)} />` : null}
    ${locked ? html`<${LockNotice} lock=${lock} form=${form} year=${year} />` : null}
    <${QueuedNotice} item=${queued} locale=${locale} choose=${(k: string, draft: Draft | null) => setDrafts((all) => ({ ...all, [k]: draft ?? original[k] ?? {} }))} />
    <form onSubmit=${save} novalidate>
      <fieldset disabled=${locked || saving} class=${`elements${locked ? ' locked' : ''}`}>
        <legend class="visually-hidden">${t('period.valuesFor', { period: title })}</legend>
        ${form.elements.map(
          (element) => html`<${ElementField} element=${element} data=${data} draft=${drafts[element.key]}
            changed=${element.key in changes}
            issues=${byKey[element.key]} update=${(change: Partial<Draft>) => update(element.key, change)}
            context=${context} onLeave=${() => leave(element.key)} />`,
        )}
      </fieldset>
      <div class="save-bar" hidden=${locked}>
        <div class="messages">
          <${Errors} id="save-errors" lines=${summary} />
          <p class="saved" role="status" aria-live="polite">${saved ?? ''}</p>
        </div>
        ${locked ? null : html`<button type="submit" disabled=${saving}>${saving ? t('period.saving') : t('period.save')}</button>`}
      </div>
    </form>
  </main>`;
}

function Back({ year }: { year?: number }) {
  return html`<p class="back"><${Link} href=${year ? `/app?year=${year}` : '/app'}>← ${t('nav.reporting')}<//></p>`;
}

function LockNotice({
  lock,
  form,
  year,
}: {
  lock: PeriodData['lock'];
  form: PeriodData['form'];
  year: number;
}) {
  const what =
    lock?.periodUnit === null
      ? t('lock.wholeYear', { year: String(year) })
      : periodLabel(form.periodType, year, lock?.periodUnit ?? 1);
  return html`<div class="lock" role="note">
    <strong>${t('lock.title')}</strong>
    ${lock ? html`<p>${t(lock.siteName ? 'lock.bySite' : 'lock.byAll', { name: lock.createdByName, date: formatDate(lock.createdAt), what, site: lock.siteName })}</p>` : null}
  </div>`;
}
