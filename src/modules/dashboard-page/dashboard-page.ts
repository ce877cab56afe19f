import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { sendAsset } from '../../http/static-asset.ts';
import type { Locale } from '../../lib/locales.ts';
import { loadPageMessages, type PageMessages, pageLocale, pageTexts } from './dashboard-page.language.ts';

/**
 * The public dashboard page, `/d/{id}`: a server-rendered shell (title, description and link
 * preview tags) whose script asks the public dashboards API for the view, through the dashboard's
 * gate first when it has one, and draws the widgets with Chart.js. The scripts and the style sheet
 * are static files served by the service itself under `/assets/` (no CDN, nothing fetched at run
 * time), named by their content hash so that browsers may keep them for a year. The page's own
 * script is TypeScript (./client), bundled by the build (scripts/build-dashboard-page.mjs).
 */

/** What the page needs to know before the view: enough for the title and the link preview. */
export interface DashboardHead {
  id: string;
  name: string;
  description: string | null;
  requiresPassword: boolean;
  requiresEmail: boolean;
}

export type HeadLookup = (id: string) => Promise<DashboardHead | null>;

interface Asset {
  /** `/assets/<name>-<hash>.<ext>` */
  path: string;
  type: string;
  body: Buffer;
}

// The page's own files sit in ./assets beside this module; the build copies them to dist/assets,
// beside the bundle, so the same relative URL finds them in both (as for the migrations).
const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));

/**
 * The page's script as the build bundled it (`dashboard-page.json` names the file): in dist/assets
 * beside the bundled service, or the project's dist/assets when running from the sources. Null
 * when the project is not built.
 */
function builtScript(): Asset | null {
  const dirs = [ASSETS_DIR, fileURLToPath(new URL('../../../dist/assets/', import.meta.url))];
  const dir = dirs.find((d) => existsSync(join(d, 'dashboard-page.json')));
  if (!dir) return null;
  const { script } = JSON.parse(readFileSync(join(dir, 'dashboard-page.json'), 'utf8')) as { script: string };
  return {
    path: `/assets/${script}`,
    type: 'text/javascript; charset=utf-8',
    body: readFileSync(join(dir, script)),
  };
}

/** Chart.js's self-contained browser build, from the installed package (pinned by the lockfile). */
function chartJsFile(): string {
  const requireHere = createRequire(import.meta.url);
  return join(dirname(requireHere.resolve('chart.js')), 'chart.umd.min.js');
}

function asset(name: string, ext: 'js' | 'css', body: Buffer): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const type = ext === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8';
  return { path: `/assets/${name}-${hash}.${ext}`, type, body };
}

function loadAssets(): {
  chart: Asset;
  script: Asset | null;
  style: Asset;
  messages: Record<Locale, PageMessages>;
} {
  // The source map comment would make browsers with developer tools open ask for a file not served.
  const chart = readFileSync(chartJsFile(), 'utf8').replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n');
  return {
    chart: asset('chart.umd', 'js', Buffer.from(chart)),
    messages: loadPageMessages(ASSETS_DIR),
    script: builtScript(),
    style: asset('dashboard-page', 'css', readFileSync(join(ASSETS_DIR, 'dashboard-page.css'))),
  };
}

export const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/**
 * Scripts only from the service itself (no inline script at all: the page's data travels in
 * data- attributes), styles only from the service's style sheet, calls only to the service.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'";

/** The status line of a page whose script was not built (the service run from its sources). */
const NOT_BUILT =
  'The page’s script is not built: run `npm run build` (npm start does it), then start the service again.';

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

type T = ReturnType<typeof pageTexts>;

/** The gate's words for the link preview (a gated dashboard's description is not revealed). */
function gateSentence(head: DashboardHead, t: T): string {
  const need = head.requiresPassword ? (head.requiresEmail ? 'both' : 'password') : 'email';
  return t('gated', { need });
}

function shell(opts: {
  title: string;
  description: string;
  url: string;
  assets: ReturnType<typeof loadAssets>;
  body: string;
  bodyAttrs?: string;
  robots?: string;
  locale: Locale;
}): string {
  const { assets } = opts;
  const title = escapeHtml(opts.title);
  const description = escapeHtml(opts.description);
  return `<!doctype html>
<html lang="${opts.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · SDCS</title>
<meta name="description" content="${description}">
${opts.robots ? `<meta name="robots" content="${opts.robots}">\n` : ''}<meta property="og:type" content="website">
<meta property="og:site_name" content="SDCS">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta property="og:url" content="${escapeHtml(opts.url)}">
<meta name="twitter:card" content="summary">
<meta name="twitter:title" content="${title}">
<meta name="twitter:description" content="${description}">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.style.path}">
<script src="${assets.chart.path}" defer></script>
${assets.script ? `<script src="${assets.script.path}" defer></script>\n` : ''}</head>
<body${opts.bodyAttrs ?? ''}>
${opts.body}
</body>
</html>
`;
}

function dashboardPage(
  head: DashboardHead,
  apiPrefix: string,
  url: string,
  assets: ReturnType<typeof loadAssets>,
  locale: Locale,
) {
  const t = pageTexts(assets.messages, locale);
  const e = (key: string) => escapeHtml(t(key));
  const gated = head.requiresPassword || head.requiresEmail;
  const description = gated
    ? gateSentence(head, t)
    : clip(head.description?.trim() || t('summary', { name: head.name }), 300);
  const shownDescription = !gated && head.description ? escapeHtml(head.description) : '';
  const attrs =
    ` data-dashboard-id="${escapeHtml(head.id)}" data-api="${escapeHtml(apiPrefix)}"` +
    ` data-requires-password="${head.requiresPassword}" data-requires-email="${head.requiresEmail}"` +
    ` data-locale="${locale}"` +
    ` data-messages="${escapeHtml(JSON.stringify(assets.messages[locale]))}"`;
  const body = `<header class="top">
  <div class="top-inner">
    <div class="brand">${e('brand')}</div>
    <h1 id="dashboard-name">${escapeHtml(head.name)}</h1>
    <p id="dashboard-description" class="description"${shownDescription ? '' : ' hidden'}>${shownDescription}</p>
    <div id="filters" class="filters" hidden>
      <label for="site-filter">${e('site')}</label>
      <select id="site-filter"><option value="">${e('allSites')}</option></select>
    </div>
  </div>
</header>
<main class="content">
  <section id="gate" class="gate card" hidden aria-labelledby="gate-title">
    <h2 id="gate-title">${e('gateTitle')}</h2>
    <p id="gate-intro" class="muted"></p>
    <form id="gate-form" novalidate>
      <div id="email-field" class="field" hidden>
        <label for="gate-email">${e('yourEmail')}</label>
        <input id="gate-email" name="email" type="email" autocomplete="email" maxlength="320" placeholder="${e('emailPlaceholder')}">
      </div>
      <div id="password-field" class="field" hidden>
        <label for="gate-password">${e('password')}</label>
        <input id="gate-password" name="password" type="password" autocomplete="current-password" maxlength="200">
      </div>
      <button id="gate-submit" type="submit">${e('open')}</button>
    </form>
    <form id="code-form" novalidate hidden>
      <p id="code-intro" class="muted"></p>
      <div class="field">
        <label for="gate-code">${e('code')}</label>
        <input id="gate-code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="20">
      </div>
      <button id="code-submit" type="submit">${e('open')}</button>
      <button id="code-back" type="button" class="link">${e('anotherAddress')}</button>
    </form>
    <p id="gate-error" class="error" role="alert" hidden></p>
  </section>
  <p id="status" class="status" role="status">${assets.script ? e('loading') : NOT_BUILT}</p>
  <noscript><p class="status">${e('noscript')}</p></noscript>
  <section id="widgets" class="widgets" aria-live="polite"></section>
</main>
<footer class="foot"><span id="computed-at"></span><span>${e('published')}</span></footer>`;
  return shell({
    title: head.name,
    description,
    url,
    assets,
    body,
    bodyAttrs: attrs,
    locale,
    ...(gated ? { robots: 'noindex' } : {}),
  });
}

function notFoundPage(url: string, assets: ReturnType<typeof loadAssets>, locale: Locale) {
  const t = pageTexts(assets.messages, locale);
  const body = `<main class="content narrow">
  <section class="card missing">
    <h1>${escapeHtml(t('notFound'))}</h1>
    <p class="muted">${escapeHtml(t('notFoundText'))}</p>
  </section>
</main>`;
  return shell({
    title: t('notFound'),
    description: t('notFoundDescription'),
    url,
    assets,
    body,
    locale,
    robots: 'noindex',
  });
}

/**
 * Registers `GET /d/:id` and `GET /assets/:file` (both public, outside the API and its document).
 * `lookup` answers the dashboard's head, or null when the page must answer 404 (unknown, private
 * or deleted dashboard).
 */
export function registerDashboardPage(
  app: FastifyInstance,
  opts: { apiPrefix: string; publicUrl: string; lookup: HeadLookup },
): void {
  const assets = loadAssets();
  const files = [assets.chart, assets.style, ...(assets.script ? [assets.script] : [])];
  const byPath = new Map(files.map((a) => [a.path, a]));
  const base = opts.publicUrl.replace(/\/+$/, '');

  app.get<{ Params: { file: string } }>(
    '/assets/:file',
    { config: { public: true }, schema: { hide: true } },
    async (request, reply) => {
      return sendAsset(reply, byPath.get(`/assets/${request.params.file}`));
    },
  );

  app.get<{ Params: { id: string }; Querystring: { lang?: string } }>(
    '/d/:id',
    { config: { public: true }, schema: { hide: true } },
    async (request, reply) => {
      const id = request.params.id;
      // Ids are UUIDs: anything else is no dashboard, without asking the database.
      const head = /^[0-9a-f-]{1,64}$/i.test(id) ? await opts.lookup(id) : null;
      const url = `${base}/d/${encodeURIComponent(id)}`;
      const locale = pageLocale(request.query.lang, request.headers['accept-language']);
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', PAGE_CSP)
        .header('referrer-policy', 'no-referrer')
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-store')
        .header('vary', 'accept-language');
      if (!head) return reply.code(404).send(notFoundPage(url, assets, locale));
      return reply.send(dashboardPage(head, opts.apiPrefix, url, assets, locale));
    },
  );
}
