/** The web-app module's front door: what other modules (and the composition root) may use. */
export { registerWebApp, uploadOrigins } from './web-app.ts';
