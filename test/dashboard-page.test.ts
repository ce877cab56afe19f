import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DashboardHead,
  PAGE_CSP,
  registerDashboardPage,
} from '../src/modules/dashboard-page/dashboard-page.ts';

// The page's server side alone (the shell, its headers, the static files), over a stub lookup; the
// browser test (dashboard-page.browser.test.ts) drives the page against the real service.
const OPEN = '11111111-1111-4111-8111-111111111111';
const GATED = '22222222-2222-4222-8222-222222222222';
const heads: Record<string, DashboardHead> = {
  [OPEN]: {
    id: OPEN,
    name: '<script>alert(1)</script> & "Energy"',
    description: 'Site <b>energy</b> use',
    requiresPassword: false,
    requiresEmail: false,
  },
  [GATED]: {
    id: GATED,
    name: 'Board pack',
    description: 'Confidential figures',
    requiresPassword: true,
    requiresEmail: true,
  },
};

let app: FastifyInstance;
const asked: string[] = [];

beforeAll(async () => {
  app = Fastify();
  registerDashboardPage(app, {
    apiPrefix: '/api/v1',
    publicUrl: 'https://sdcs.example.org/',
    lookup: async (id) => {
      asked.push(id);
      return heads[id] ?? null;
    },
  });
  await app.ready();
});
afterAll(() => app.close());

const DIST_ASSETS = join(import.meta.dirname, '..', 'dist', 'assets');
const get = (url: string) => app.inject({ method: 'GET', url });
const assetPaths = (html: string) =>
  [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);

describe('GET /d/:id', () => {
  it('renders the shell with the name escaped, the preview tags and a strict CSP', async () => {
    const res = await get(`/d/${OPEN}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(PAGE_CSP).toContain("script-src 'self';");
    expect(PAGE_CSP).not.toContain('unsafe-inline');
    const html = res.body;
    expect(html).not.toContain('<script>alert');
    expect(html).toContain(
      '<title>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Energy&quot; · SDCS</title>',
    );
    expect(html).toContain('<meta name="description" content="Site &lt;b&gt;energy&lt;/b&gt; use">');
    expect(html).toContain('<meta property="og:title" content="&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain(`<meta property="og:url" content="https://sdcs.example.org/d/${OPEN}">`);
    expect(html).toContain(`data-dashboard-id="${OPEN}"`);
    expect(html).not.toContain('noindex');
    // Every script is a file of the service's: no inline script at all.
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(2);
    for (const [, attrs, content] of scripts) {
      expect(attrs).toMatch(/ src="\/assets\//);
      expect(content).toBe('');
    }
  });

  it('tells a link preview only the name and the gate of a protected dashboard', async () => {
    const res = await get(`/d/${GATED}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<title>Board pack · SDCS</title>');
    expect(res.body).not.toContain('Confidential');
    expect(res.body).toContain(
      '<meta name="description" content="A protected dashboard: a password and an allowed e-mail address are needed to open it.">',
    );
    expect(res.body).toContain('<meta name="robots" content="noindex">');
    expect(res.body).toContain('data-requires-password="true" data-requires-email="true"');
  });

  it('answers 404 with a page when the dashboard is unknown, private or deleted', async () => {
    const unknown = '33333333-3333-4333-8333-333333333333';
    const res = await get(`/d/${unknown}`);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<h1>Dashboard not found</h1>');
    expect(asked).toContain(unknown);
  });

  it('answers 404 for an id that cannot be one, without looking it up', async () => {
    const before = asked.length;
    const res = await get('/d/%3Cimg%20src%3Dx%3E');
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('<img');
    expect(asked).toHaveLength(before);
  });
});

describe('GET /assets/:file', () => {
  it('serves the page’s script, style sheet and Chart.js with long cache headers', async () => {
    const paths = assetPaths((await get(`/d/${OPEN}`)).body);
    expect(paths).toHaveLength(3);
    for (const path of paths) {
      expect(path).toMatch(/^\/assets\/[a-z.-]+-[0-9a-f]{12}\.(js|css)$/);
      const res = await get(path);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type']).toMatch(path.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
    }
    // The page's script is the build's bundle (scripts/build-dashboard-page.mjs), named by its hash,
    // with the message formatter inside it (no second script to import at run time).
    const built = JSON.parse(readFileSync(join(DIST_ASSETS, 'dashboard-page.json'), 'utf8')) as {
      script: string;
    };
    const script = await get(`/assets/${built.script}`);
    expect(paths).toContain(`/assets/${built.script}`);
    expect(script.body).toBe(readFileSync(join(DIST_ASSETS, built.script), 'utf8'));
    expect(script.body).not.toMatch(/\bimport\(/);
    expect((await get(`/d/${OPEN}`)).body).not.toContain('data-icu');
    const chart = await get(paths.find((p) => p.includes('chart.umd'))!);
    expect(chart.body).toContain('Chart.js v4.6.1');
    expect(chart.body).not.toContain('sourceMappingURL');
  });

  it('answers 404 for any other file', async () => {
    for (const url of ['/assets/nothing.js', '/assets/..%2Fpackage.json', '/assets/dashboard-page.js']) {
      const res = await get(url);
      expect(res.statusCode).toBe(404);
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });
});

// The bundle that `npm start` runs (dist/, built by the tests' global setup) finds the page's files
// beside it (dist/assets) and Chart.js in node_modules.
describe('in the bundle', () => {
  let server: ChildProcess | undefined;
  afterAll(() => {
    server?.removeAllListeners('exit');
    server?.kill('SIGTERM');
  });

  it('serves the 404 page and every file it links to', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SDCS_DATA_DIR: mkdtempSync(join(tmpdir(), 'sdcs-page-')),
      PORT: '0',
      LOG_LEVEL: 'info',
    };
    delete env['DATABASE_URL'];
    const child = spawn(process.execPath, [join(import.meta.dirname, '..', 'dist', 'sdcs.mjs'), 'serve'], {
      env,
    });
    server = child;
    const base = await new Promise<string>((resolve, reject) => {
      let out = '';
      const onData = (d: Buffer) => {
        out += d;
        const m = /SDCS listening on (http:\/\/[^\s]+) /.exec(out);
        if (m?.[1]) resolve(m[1]);
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.on('exit', (code) => reject(new Error(`the service exited with ${code}: ${out}`)));
    });
    const page = await fetch(`${base}/d/${OPEN}`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-security-policy')).toBe(PAGE_CSP);
    const paths = assetPaths(await page.text());
    expect(paths).toHaveLength(3);
    for (const path of paths) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await res.text()).length).toBeGreaterThan(1000);
    }
  }, 60_000);
});
