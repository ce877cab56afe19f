import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.ts';

// The custom activity form's frame (issue 51, decision 224): a document carried in the app's own
// bundle and written into a sandboxed `srcdoc` frame. It inherits the app's CSP, which allows its
// one inline script and style by hash and nothing broader; its own <meta> policy takes every
// request away. How Chromium holds it to that is in web-app.custom-form.browser.test.ts.

const t = useTestApp();
const get = (url: string) => t.app.inject({ method: 'GET', url });
const DIST = join(import.meta.dirname, '..', 'dist', 'app');
const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const directives = (csp: string) =>
  Object.fromEntries(
    csp.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values.join(' ')];
    }),
  );

/** The frame's document as the app's chunk carries it, with its inline script and style. */
async function frameDocument() {
  const manifest = JSON.parse(readFileSync(join(DIST, 'manifest.json'), 'utf8'));
  const chunk = (manifest.files as string[]).find((f) => /^frame-document-\w+\.js$/.test(f))!;
  const { FRAME_DOCUMENT: html } = (await import(pathToFileURL(join(DIST, chunk)).href)) as {
    FRAME_DOCUMENT: string;
  };
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
  return { manifest, chunk, html, scripts, styles };
}

describe('the custom form frame’s document', () => {
  it('carries its own CSP before its code: its inline code by hash, blob workers, no request', async () => {
    const { html, scripts, styles } = await frameDocument();
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    // Nothing loaded by address: one inline script, one inline style, no link.
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script>']);
    expect(html).not.toMatch(/<link|src=|href=/);
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
    expect(meta).not.toBeNull();
    // A <meta> policy covers what follows it: it comes before the style and the script.
    expect(meta!.index).toBeLessThan(html.indexOf('<style>'));
    const csp = meta![1]!;
    expect(directives(csp)).toEqual({
      'default-src': "'none'",
      'script-src': hash(scripts[0]!),
      'style-src': hash(styles[0]!),
      'worker-src': 'blob:',
      'connect-src': "'none'",
      'img-src': "'none'",
      'font-src': "'none'",
      'media-src': "'none'",
      'object-src': "'none'",
      'frame-src': "'none'",
      'child-src': "'none'",
      'manifest-src': "'none'",
      'form-action': "'none'",
      'base-uri': "'none'",
    });
    expect(csp).not.toMatch(/unsafe|\*|'self'|https?:|data:/);
  });

  it('the app’s CSP allows exactly the frame’s code by hash, blob workers, and frames from nowhere', async () => {
    const { scripts, styles } = await frameDocument();
    const res = await get('/app/enter/f/s/2025/3');
    const csp = directives(String(res.headers['content-security-policy']));
    expect(csp['script-src']).toBe(`'self' ${hash(scripts[0]!)}`);
    expect(csp['style-src']).toBe(`'self' ${hash(styles[0]!)}`);
    expect(csp['worker-src']).toBe("'self' blob:");
    // A srcdoc frame is not fetched: no frame of any address is allowed.
    expect(csp['frame-src']).toBe("'none'");
    expect(csp['default-src']).toBe("'none'");
    expect(String(res.headers['content-security-policy'])).not.toMatch(/unsafe|\*/);
  });

  it('comes in a chunk the service worker keeps, not in the first load; no frame address is left', async () => {
    const { manifest, chunk } = await frameDocument();
    const urls = (manifest.precache as { url: string }[]).map((e) => e.url);
    expect(urls).toContain(`/app/assets/${chunk}`);
    const main = readFileSync(join(DIST, manifest.script), 'utf8');
    expect(main).not.toContain('Content-Security-Policy');
    expect((await get(`/app/assets/${chunk}`)).statusCode).toBe(200);
    // The old address is a screen of the app now: its shell, which refuses to be framed.
    const old = await get('/app/ui-frame.html');
    expect(old.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(old.headers['x-frame-options']).toBe('DENY');
  });
});
