import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { appCsp } from '../src/modules/web-app/web-app.ts';
import { useTestApp } from './helpers/app.ts';
import { invitationTestConfig } from './helpers/invitations.ts';

// The web app's offline parts (issue 47) as the service serves them: the service worker at a fixed
// address allowed to control /app, the web app manifest and its icons (content-hashed), the links
// in the shell, and what the worker precaches. The behaviour offline is in
// web-app.offline.browser.test.ts.

const t = useTestApp(invitationTestConfig());
const get = (url: string) => t.app.inject({ method: 'GET', url });
const DIST = join(import.meta.dirname, '..', 'dist', 'app');
const manifest = () => JSON.parse(readFileSync(join(DIST, 'manifest.json'), 'utf8'));

describe('the installable app', () => {
  it('serves the service worker at /app/sw.js, never cached by HTTP, allowed to control /app', async () => {
    const res = await get('/app/sw.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/javascript');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['service-worker-allowed']).toBe('/app');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; connect-src 'self'");
    // Workbox is bundled in: the worker imports nothing at run time.
    expect(res.body).not.toMatch(/importScripts|\bimport\s*[("{]/);
    expect(res.body).toContain('workbox');
    // The worker file is not among the year-long cached assets.
    expect((await get('/app/assets/sw.js')).statusCode).toBe(404);
  });

  it('precaches the shell and every file the page loads, by content hash, not the spreadsheet worker', async () => {
    const built = manifest();
    const worker = (await get('/app/sw.js')).body;
    const list: { url: string; revision: string | null }[] = built.precache;
    const urls = list.map((e) => e.url);
    // The list the build wrote is the one bundled into the worker.
    for (const entry of list) expect(worker).toContain(`"${entry.url}"`);
    expect(urls).toContain('/app');
    expect(list.find((e) => e.url === '/app')!.revision).toMatch(/^[0-9A-F]{8}$/);
    expect(urls).toContain(`/app/assets/${built.script}`);
    expect(urls).toContain(`/app/assets/${built.style}`);
    expect(urls).toContain(`/app/assets/${built.webManifest}`);
    expect(urls.some((u: string) => /\/import-\w+\.js$/.test(u))).toBe(true);
    expect(urls.some((u: string) => /exceljs|sheets-worker/.test(u))).toBe(false);
    for (const url of urls.filter((u: string) => u !== '/app')) {
      expect(url).toMatch(/-[0-9A-Z]{8}\.(js|css|png|webmanifest)$/);
      expect((await get(url)).statusCode, url).toBe(200);
    }
    // The worker is a separate file: the page's first load does not grow by it.
    expect(gzipSync(Buffer.from(worker), { level: 9 }).length).toBeLessThan(10 * 1024);
  });

  it('links the web app manifest from the shell; the manifest names /app and two PNG icons', async () => {
    const built = manifest();
    const shell = await get('/app/enter/f/s/2025/3');
    expect(shell.body).toContain(`<link rel="manifest" href="/app/assets/${built.webManifest}">`);
    expect(shell.body).toContain('<meta name="theme-color" content="#0b5e55">');
    const res = await get(`/app/assets/${built.webManifest}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/manifest+json');
    const web = JSON.parse(res.body);
    expect(web).toMatchObject({
      start_url: '/app',
      scope: '/app',
      display: 'standalone',
      short_name: 'SDCS',
    });
    expect(web.icons.map((i: { sizes: string }) => i.sizes)).toEqual(['192x192', '512x512']);
    for (const icon of web.icons) {
      const png = await get(icon.src);
      expect(png.statusCode).toBe(200);
      expect(png.headers['content-type']).toBe('image/png');
      expect(png.rawPayload.subarray(1, 4).toString()).toBe('PNG');
      // Width and height in the PNG header match the manifest.
      const [w, h] = icon.sizes.split('x').map(Number);
      expect([png.rawPayload.readUInt32BE(16), png.rawPayload.readUInt32BE(20)]).toEqual([w, h]);
    }
  });

  it('the CSP lets the page read its manifest and start its workers from the service only', () => {
    const csp = appCsp(["'self'"]);
    expect(csp).toContain("manifest-src 'self';");
    expect(csp).toContain("worker-src 'self';");
    // With a custom form frame's hashes: its workers from blobs too (web-app.frame.test.ts).
    expect(appCsp(["'self'"], { scriptHash: 'sha256-a', styleHash: 'sha256-b' })).toContain(
      "worker-src 'self' blob:;",
    );
  });
});
