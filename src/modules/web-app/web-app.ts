import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../../config.ts';
import { sendAsset } from '../../http/static-asset.ts';

/**
 * The reporting web app, `/app`: one HTML shell for every screen (`/app`, `/app/...`; the
 * browser script picks the screen from the path) and its content-hashed files under
 * `/app/assets/`. The script talks only to the public API under `apiPrefix`, with the person's
 * access token kept in sessionStorage. Nothing of the page is inline: the CSP allows scripts and
 * styles from the service only (and, by hash, the custom form frame's code, see appCsp), and
 * calls to the service plus the upload address of the storage.
 */

interface AppFile {
  type: string;
  body: Buffer;
}

/** The SHA-256 sources (`sha256-…`) of the custom form frame's one inline script and style sheet. */
export interface FrameHashes {
  scriptHash: string;
  styleHash: string;
}

interface Bundle {
  script: string;
  style: string | null;
  /** The web app manifest and the service worker (issue 47); absent from an older build. */
  webManifest?: string | undefined;
  serviceWorker?: AppFile | undefined;
  files: Map<string, AppFile>;
  /** The hashes of the custom form frame's inline code (issue 51, decision 224). */
  frame?: FrameHashes | undefined;
}

/** `dist/app` beside the bundled service; from the sources, the project's `dist/app`. */
function bundleDir(): string | null {
  const candidates = [
    fileURLToPath(new URL('./app/', import.meta.url)),
    fileURLToPath(new URL('../../../dist/app/', import.meta.url)),
  ];
  return candidates.find((dir) => existsSync(join(dir, 'manifest.json'))) ?? null;
}

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  png: 'image/png',
  webmanifest: 'application/manifest+json; charset=utf-8',
};

function loadBundle(): Bundle | null {
  const dir = bundleDir();
  if (!dir) return null;
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    script: string;
    style: string | null;
    files: string[];
    webManifest?: string;
    serviceWorker?: string;
    frame?: FrameHashes;
  };
  const files = new Map<string, AppFile>();
  for (const name of manifest.files) {
    const type = TYPES[name.split('.').pop() ?? ''];
    if (!type || name === manifest.serviceWorker) continue; // source maps and the like are not served
    files.set(name, { type, body: readFileSync(join(dir, name)) });
  }
  const serviceWorker = manifest.serviceWorker
    ? { type: TYPES['js']!, body: readFileSync(join(dir, manifest.serviceWorker)) }
    : undefined;
  return {
    frame: manifest.frame,
    script: manifest.script,
    style: manifest.style,
    webManifest: manifest.webManifest,
    serviceWorker,
    files,
  };
}

/** The origins the browser uploads files to (the presigned POST's address). */
export function uploadOrigins(config: Pick<Config, 'publicUrl' | 's3'>): string[] {
  if (!config.s3) return [new URL(config.publicUrl).origin];
  if (config.s3.endpoint) {
    const endpoint = new URL(config.s3.endpoint);
    if (config.s3.forcePathStyle) return [endpoint.origin];
    return [`${endpoint.protocol}//*.${endpoint.host}`];
  }
  return ['https://*.amazonaws.com'];
}

/**
 * The app's CSP: its own scripts and styles, calls to the service and the upload address. The
 * custom form's frames (decision 224) are `srcdoc` documents, which inherit this policy: it allows
 * their one inline script and style sheet by hash and the workers they start from blobs; each
 * frame's own `<meta>` policy takes every other source away again (build-web-app-frame.mjs).
 * A srcdoc frame is fetched from nowhere, so `frame-src` allows nothing.
 */
export function appCsp(connect: string[], frame?: FrameHashes): string {
  const sources = ["'self'", ...connect.filter((o) => o !== "'self'")].join(' ');
  const script = frame ? ` '${frame.scriptHash}'` : '';
  const style = frame ? ` '${frame.styleHash}'` : '';
  const workers = frame ? ' blob:' : '';
  return (
    `default-src 'none'; script-src 'self'${script}; style-src 'self'${style}; img-src 'self' data:; ` +
    `connect-src ${sources}; manifest-src 'self'; worker-src 'self'${workers}; frame-src 'none'; ` +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
  );
}

/** The HTML every screen starts from: the style sheet, the entry script, an empty #app. */
export function appShell(
  bundle: Pick<Bundle, 'script' | 'style' | 'webManifest'>,
  apiPrefix: string,
): string {
  const style = bundle.style ? `<link rel="stylesheet" href="/app/assets/${bundle.style}">\n` : '';
  // Installable (issue 47): the web app manifest names the icons; the theme colour is the header's.
  const pwa = bundle.webManifest
    ? `<link rel="manifest" href="/app/assets/${bundle.webManifest}">\n<meta name="theme-color" content="#0b5e55">\n`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>SDCS reporting</title>
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
${pwa}${style}<script type="module" src="/app/assets/${bundle.script}"></script>
</head>
<body data-api="${apiPrefix.replace(/[^/\w-]/g, '')}">
<div id="app"><p class="boot">Loading SDCS…</p></div>
<noscript><p class="boot">The SDCS reporting app needs JavaScript.</p></noscript>
</body>
</html>
`;
}

const NOT_BUILT =
  'The web app is not built: run `npm run build` (npm start does it), then start the service again.';

/**
 * Registers `GET /app`, `GET /app/*` (the shell) and `GET /app/assets/:file` (public, outside
 * the API and its document, like the dashboard page). The bundle is read on the first request.
 */
export function registerWebApp(
  app: FastifyInstance,
  opts: { apiPrefix: string; connectOrigins: string[] },
): void {
  let bundle: Bundle | null | undefined;
  const load = () => {
    bundle ??= loadBundle();
    return bundle;
  };

  const page = async (_request: unknown, reply: FastifyReply) => {
    const found = load();
    reply
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store');
    if (!found) return reply.code(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', appCsp(opts.connectOrigins, found.frame))
      .header('x-frame-options', 'DENY')
      .send(appShell(found, opts.apiPrefix));
  };
  const route = { config: { public: true }, schema: { hide: true } };
  app.get('/app', route, page);
  app.get('/app/*', route, page);

  // The service worker (issue 47): a fixed address the browser checks for updates (never cached
  // by HTTP), allowed to control /app itself, not only what lies under /app/.
  app.get('/app/sw.js', route, async (_request, reply) => {
    const worker = load()?.serviceWorker;
    if (!worker) return sendAsset(reply, undefined);
    return reply
      .type(worker.type)
      .header('cache-control', 'no-cache')
      .header('service-worker-allowed', '/app')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; connect-src 'self'")
      .send(worker.body);
  });

  app.get<{ Params: { file: string } }>('/app/assets/:file', route, async (request, reply) => {
    return sendAsset(reply, load()?.files.get(request.params.file));
  });
}
