import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readOutbox } from '../src/mail/outbox.ts';
import { appCsp, uploadOrigins } from '../src/modules/web-app/web-app.ts';
import { api, useTestApp } from './helpers/app.ts';
import { activateForm, assignSites, createForm, createSite, createTenant } from './helpers/factories.ts';
import { invitationTestConfig, newEmail, PUBLIC_URL } from './helpers/invitations.ts';

// The web app's routes (public, outside the API) and the e-mails that lead into it.

const t = useTestApp(invitationTestConfig());
const get = (url: string) => t.app.inject({ method: 'GET', url });
const DIST = join(import.meta.dirname, '..', 'dist', 'app');

describe('GET /app and its screens', () => {
  it('answers the same shell for every screen, without a credential, with a strict CSP', async () => {
    for (const url of [
      '/app',
      '/app/',
      '/app/review',
      '/app/enter/f/s/2025/3',
      '/app/accept-invitation?token=x',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      // The service's scripts, and by hash the custom form frame's one script (web-app.frame.test.ts).
      expect(csp).toMatch(/script-src 'self' 'sha256-[\w+/]+=*';/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.body).toContain('<div id="app">');
      expect(res.body).toContain('data-api="/api/v1"');
      // Only scripts with a src (no inline script), from the app's own assets.
      expect(res.body.match(/<script[^>]*>/g)).toEqual([
        expect.stringMatching(/src="\/app\/assets\/main-\w+\.js"/),
      ]);
    }
  });

  it('serves the content-hashed assets for a year, and 404 for anything else', async () => {
    const manifest = JSON.parse(readFileSync(join(DIST, 'manifest.json'), 'utf8'));
    const script = await get(`/app/assets/${manifest.script}`);
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toContain('text/javascript');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const style = await get(`/app/assets/${manifest.style}`);
    expect(style.headers['content-type']).toContain('text/css');
    for (const url of [
      '/app/assets/main.js',
      '/app/assets/..%2Fmanifest.json',
      '/app/assets/manifest.json',
    ]) {
      expect((await get(url)).statusCode, url).toBe(404);
    }
  });

  it('keeps the spreadsheet readers out of the first load', () => {
    const manifest = JSON.parse(readFileSync(join(DIST, 'manifest.json'), 'utf8'));
    const main = readFileSync(join(DIST, manifest.script), 'utf8');
    const staticImports = [...main.matchAll(/import\s*(?:[\w${},\s*]+from\s*)?"\.\/([\w.-]+\.js)"/g)].map(
      (m) => m[1],
    );
    const firstLoad = [manifest.script, ...staticImports]
      .map((f) => readFileSync(join(DIST, f), 'utf8'))
      .join('');
    // The readers' own strings (workbook-reader.js and exceljs look for this part of an .xlsx); the
    // word "workbook" itself is in the English messages, which the first load carries.
    expect(firstLoad).not.toContain('xl/workbook.xml');
    expect(firstLoad).not.toContain('papaparse');
    expect(manifest.files.some((f: string) => f.startsWith('exceljs'))).toBe(true);
  });

  it('the first load of /app (entry script, its static imports and the style sheet) stays under 150 KB gzip', () => {
    const manifest = JSON.parse(readFileSync(join(DIST, 'manifest.json'), 'utf8'));
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      const text = readFileSync(join(DIST, file), 'utf8');
      for (const m of text.matchAll(/import\s*(?:[\w${},\s*]+from\s*)?"\.\/([\w.-]+\.js)"/g)) visit(m[1]!);
    };
    visit(manifest.script);
    const files = [...loaded, ...(manifest.style ? [manifest.style] : [])];
    const gzipped = files.reduce(
      (sum, f) => sum + gzipSync(readFileSync(join(DIST, f)), { level: 9 }).length,
      0,
    );
    expect(gzipped).toBeGreaterThan(10_000); // the app is there
    expect(gzipped).toBeLessThan(150 * 1024);
  });
});

describe('upload origins in the CSP', () => {
  it('allows the service itself, or the S3 endpoint the presigned POST goes to', () => {
    expect(uploadOrigins({ publicUrl: 'https://sdcs.example.org', s3: undefined })).toEqual([
      'https://sdcs.example.org',
    ]);
    const s3 = { bucket: 'b', region: 'eu-west-1', credentials: undefined };
    expect(
      uploadOrigins({
        publicUrl: 'https://x',
        s3: { ...s3, endpoint: 'http://minio.local:9000', forcePathStyle: true },
      }),
    ).toEqual(['http://minio.local:9000']);
    expect(
      uploadOrigins({ publicUrl: 'https://x', s3: { ...s3, endpoint: undefined, forcePathStyle: false } }),
    ).toEqual(['https://*.amazonaws.com']);
    expect(appCsp(['https://*.amazonaws.com'])).toContain("connect-src 'self' https://*.amazonaws.com;");
  });
});

describe('e-mails lead to the web app', () => {
  /** The e-mails to `email`, once the queued ones were sent (decision 232). */
  const mailsTo = async (email: string) => {
    await t.app.jobs.drain();
    return (await readOutbox(join(t.config.dataDir, 'outbox'))).filter((m) => m.to === email);
  };

  it('the invitation links to PUBLIC_URL/app/accept-invitation', async () => {
    const tenant = await createTenant(t);
    const email = newEmail();
    const res = await api(t, 'POST', '/organizations/current/invitations', {
      token: tenant.owner.token,
      body: { email, assignedSiteIds: [], role: 'VIEWER' },
    });
    expect(res.status).toBe(200);
    const [mail] = await mailsTo(email);
    expect(mail!.text).toMatch(new RegExp(`${PUBLIC_URL}/app/accept-invitation\\?token=\\S+`));
  });

  it('a reminder links to the period’s screen for one site, to My reporting for several', async () => {
    const tenant = await createTenant(t);
    const org = tenant.organizationId;
    const [a, b] = [await createSite(t, org, { name: 'A' }), await createSite(t, org, { name: 'B' })];
    const form = await createForm(t, tenant, { periodType: 'MONTHLY' });
    await activateForm(t, tenant, form.id, [a, b], [2025]);
    await assignSites(t, org, tenant.manager.userId, [a, b]);
    await assignSites(t, org, tenant.collector.userId, [a]);
    const sent = await api(t, 'POST', '/completeness/reminders', {
      token: tenant.manager.token,
      body: { formId: form.id, year: 2025, periodUnit: 3 },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const [mail] = await mailsTo(tenant.collector.email);
    expect(mail!.text).toContain(`Enter it here: ${PUBLIC_URL}/app/enter/${form.id}/${a}/2025/3`);
    expect(mail!.html).toContain(`href="${PUBLIC_URL}/app/enter/${form.id}/${a}/2025/3"`);
  });

  it('a collector of several sites is sent to My reporting of the form and year', async () => {
    const tenant = await createTenant(t);
    const org = tenant.organizationId;
    const [a, b] = [await createSite(t, org, { name: 'A' }), await createSite(t, org, { name: 'B' })];
    const form = await createForm(t, tenant, { periodType: 'QUARTERLY' });
    await activateForm(t, tenant, form.id, [a, b], [2025]);
    await assignSites(t, org, tenant.manager.userId, [a, b]);
    await assignSites(t, org, tenant.collector.userId, [a, b]);
    const sent = await api(t, 'POST', '/completeness/reminders', {
      token: tenant.manager.token,
      body: { formId: form.id, year: 2025, periodUnit: 2 },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const [mail] = await mailsTo(tenant.collector.email);
    expect(mail!.text).toContain(`Enter it here: ${PUBLIC_URL}/app?form=${form.id}&year=2025`);
  });
});
