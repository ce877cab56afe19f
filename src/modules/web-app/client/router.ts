// Screens by path under /app, with the History API (no hash, no token in any URL).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set();

// The open screen's question before leaving it (unsaved changes), or null.
let leaveQuestion = null;

/** Whether the person may leave the screen: asks first when it has unsaved changes. */
export function mayLeave() {
  return leaveQuestion === null || window.confirm(leaveQuestion);
}

/**
 * While `dirty`, leaving asks `question` first: a link inside the app (through `navigate`), and
 * a reload or closed tab (the browser's own question on beforeunload).
 */
export function useLeaveGuard(dirty, question) {
  useEffect(() => {
    if (!dirty) return;
    leaveQuestion = question;
    const beforeUnload = (event) => {
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
export function navigate(url, { replace = false, force = false } = {}) {
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
export function Link({ href, children, ...rest }) {
  const onClick = (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return html`<a href=${href} onClick=${onClick} ...${rest}>${children}</a>`;
}
