import { hasToken } from './api.ts';
import { chartDefaults } from './charts.ts';
import { initGate, showGate } from './gate.ts';
import { LOCALE } from './language.ts';
import { dashboardId, pageNeedsEmail, pageNeedsPassword } from './page.ts';
import { load } from './view.ts';

// The public dashboard page's script (bundled by scripts/build-dashboard-page.mjs and served by
// its content-hashed name: the page's CSP allows no inline script). It asks the public
// dashboards API for the view; on 401 it shows the dashboard's gate (password, e-mail then
// code), keeps the access token for this tab and asks again.

if (dashboardId) {
  // (No id: the not-found page, which has nothing to draw.)
  initGate(load);
  chartDefaults(LOCALE);
  // A protected dashboard without a token of this tab's: the gate at once, without a refused call.
  if (!hasToken() && (pageNeedsPassword || pageNeedsEmail)) showGate({});
  else void load();
}
