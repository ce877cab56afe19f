import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.ts';

// The custom activity form's frame (issue 51): a document of its own whose CSP allows its one
// inline script and style by hash and no request of any kind, and sandboxes it even when opened
// on its own; the app's CSP lets it frame that document.

const t = useTestApp();
const get = (url: string) => t.app.inject({ method: 'GET', url });
const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

describe('GET /app/ui-frame.html', () => {
  it('serves the frame with its own CSP: its inline code by hash, no request, a sandbox', async () => {
    const res = await get('/app/ui-frame.html');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['x-frame-options']).toBeUndefined();
    const csp = String(res.headers['content-security-policy']);
    const directives = Object.fromEntries(
      csp.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    const scripts = [...res.body.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    const styles = [...res.body.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    expect(directives).toMatchObject({
      'default-src': "'none'",
      'script-src': hash(scripts[0]!),
      'style-src': hash(styles[0]!),
      'worker-src': 'blob:',
      'connect-src': "'none'",
      'img-src': "'none'",
      'font-src': "'none'",
      'frame-src': "'none'",
      'form-action': "'none'",
      'base-uri': "'none'",
      'frame-ancestors': "'self'",
      sandbox: 'allow-scripts',
    });
    expect(csp).not.toMatch(/unsafe|\*/);
    // No other script: nothing loaded by address.
    expect(res.body.match(/<script[^>]*>/g)).toEqual(['<script>']);
  });

  it('the app may frame it: its CSP allows frames of its own origin only', async () => {
    const csp = String((await get('/app')).headers['content-security-policy']);
    expect(csp).toContain("frame-src 'self';");
  });
});
