// The reporting app's service worker, served at /app/sw.js with the scope /app: it keeps every
// file the app's pages load (content-hashed names, so a new build is a new precache) and the HTML
// shell, so that /app opens without a connection. Screens are asked of the network first; only
// when it cannot be reached does the kept shell answer. The API is not cached here: the page
// keeps its own answers per person in IndexedDB (offline/cache.js), which a worker shared by every
// person of the browser must not do. Background Sync, where the browser has it, wakes the open
// tabs to send what waits in the queue (the tab holds the access token, the worker does not).
import { cleanupOutdatedCaches, matchPrecache, precacheAndRoute } from 'workbox-precaching';
import { registerRoute } from 'workbox-routing';

declare const self: ServiceWorkerGlobalScope;
/** Filled in by the build (scripts/build-web-app-offline.mjs). */
declare const SDCS_PRECACHE: { url: string; revision: string | null }[];
/** Background Sync's event (not in TypeScript's WebWorker library). */
type SyncEvent = ExtendableEvent & { tag: string };

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

// Screens first (routes answer in the order they were registered): the precache's own route would
// answer /app from the cache even online.
const SHELL = '/app';
registerRoute(
  ({ request, url }) =>
    request.mode === 'navigate' && (url.pathname === SHELL || url.pathname.startsWith(`${SHELL}/`)),
  async ({ request }) => {
    try {
      return await fetch(request);
    } catch (error) {
      const kept = await matchPrecache(SHELL);
      if (kept) return kept;
      throw error;
    }
  },
);

// Filled by scripts/build-web-app-offline.mjs: every file the pages load, with its revision.
precacheAndRoute(SDCS_PRECACHE);
cleanupOutdatedCaches();

self.addEventListener('sync', (received) => {
  const event = received as SyncEvent;
  if (event.tag !== 'sdcs-outbox') return;
  event.waitUntil(
    self.clients.matchAll({ type: 'window' }).then((clients) => {
      for (const client of clients) client.postMessage({ type: 'sdcs-outbox-flush' });
    }),
  );
});
