// The header's word on the queue: "1 period waiting to be sent", the periods that need the
// person (refused, or changed by someone else meanwhile), each a link to its period, and whether
// the browser is offline. Announced politely to screen readers as it changes.
import './offline.css';
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { periodLabel } from '../format.js';
import { Link } from '../router.js';
import { flush, type OutboxItem, onOutboxChange, outboxItems } from './outbox.js';
import { offlineTexts } from './texts.js';

/** The queue as the screens see it: the person's items, kept current. */
export function useOutbox() {
  const [list, setList] = useState<OutboxItem[]>([]);
  useEffect(() => {
    let live = true;
    const read = () => outboxItems().then((all) => live && setList(all));
    read();
    const stop = onOutboxChange(read);
    return () => {
      live = false;
      stop();
    };
  }, []);
  return list;
}

function useOnline() {
  const [online, setOnline] = useState(navigator.onLine);
  useEffect(() => {
    const on = () => setOnline(true);
    const off = () => setOnline(false);
    window.addEventListener('online', on);
    window.addEventListener('offline', off);
    return () => {
      window.removeEventListener('online', on);
      window.removeEventListener('offline', off);
    };
  }, []);
  return online;
}

const STATE: Record<OutboxItem['state'], string> = {
  waiting: offlineTexts.stateWaiting,
  refused: offlineTexts.stateRefused,
  conflict: offlineTexts.stateConflict,
};

export function OutboxStatus() {
  const list = useOutbox();
  const online = useOnline();
  const [busy, setBusy] = useState(false);
  const waiting = list.filter((i) => i.state === 'waiting').length;
  const attention = list.length - waiting;
  const words = [
    ...(waiting ? [offlineTexts.waiting(waiting)] : []),
    ...(attention ? [offlineTexts.attention(attention)] : []),
  ];
  const send = async () => {
    setBusy(true);
    await flush().catch(() => undefined);
    setBusy(false);
  };
  if (online && list.length === 0) return html`<div class="outbox" role="status" aria-live="polite"></div>`;
  return html`<div class="outbox" role="status" aria-live="polite">
    <div class="outbox-inner">
      ${online ? null : html`<p class="outbox-offline">${offlineTexts.offline}</p>`}
      ${
        list.length
          ? html`<details class="outbox-list">
              <summary>${words.join(' · ')}</summary>
              <ul aria-label=${offlineTexts.listLabel}>
                ${list.map(
                  (item) => html`<li>
                    <${Link} href=${`/app/enter/${item.formId}/${item.siteId}/${item.year}/${item.periodUnit}`}>
                      ${item.formName}: ${periodLabel(item.periodType, item.year, item.periodUnit)} · ${item.siteName}<//>
                    <span class="muted"> (${STATE[item.state]})</span>
                  </li>`,
                )}
              </ul>
            </details>`
          : null
      }
      ${
        waiting && online
          ? html`<button type="button" class="secondary small" disabled=${busy} onClick=${send}>
              ${busy ? offlineTexts.sending : offlineTexts.sendNow}</button>`
          : null
      }
    </div>
  </div>`;
}
