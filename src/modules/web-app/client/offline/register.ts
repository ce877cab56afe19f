// Installs the service worker (offline/sw.js, served at /app/sw.js for the whole of /app) where
// the browser has service workers and the page is in a secure context; the app works without.
export function registerServiceWorker() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register('/app/sw.js', { scope: '/app' }).catch((error) => {
    console.warn('sdcs: service worker not installed:', error?.message);
  });
}
