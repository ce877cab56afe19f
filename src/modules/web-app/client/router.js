// Screens by path under /app, with the History API (no hash, no token in any URL).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set();

export function navigate(url, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
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
