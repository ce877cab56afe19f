// Screens by path under /app, with the History API (no hash, no token in any URL).
import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

// The open screen's question before leaving it (unsaved changes), or null.
let leaveQuestion: string | null = null;

/** Whether the person may leave the screen: asks first when it has unsaved changes. */
export function mayLeave() {
  return leaveQuestion === null || window.confirm(leaveQuestion);
}

/**
 * While `dirty`, leaving asks `question` first: a link inside the app (through `navigate`), and
 * a reload or closed tab (the browser's own question on beforeunload).
 */
export function useLeaveGuard(dirty: boolean, question: string) {
  useEffect(() => {
    if (!dirty) return;
    leaveQuestion = question;
    const beforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      leaveQuestion = null;
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [dirty, question]);
}

/** Goes to `url` inside the app; `force` skips the unsaved-changes question. Answers whether it went. */
export function navigate(url: string, { replace = false, force = false } = {}): boolean {
  if (!force && !mayLeave()) return false;
  leaveQuestion = null;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
  return true;
}

/** The current location (path and query), re-rendering on navigation. */
export function useLocation() {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = () => setTick((n) => n + 1);
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return {
    path: location.pathname.replace(/\/+$/, '') || '/app',
    query: new URLSearchParams(location.search),
  };
}

/** A link inside the app: a real <a href> that navigates without reloading. */
export function Link({
  href,
  children,
  ...rest
}: {
  href: string;
  children?: ComponentChildren;
  [attribute: string]: unknown;
}) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return html`<a href=${href} onClick=${onClick} ...${rest}>${children}</a>`;
}
