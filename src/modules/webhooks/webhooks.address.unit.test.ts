import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isPrivateAddress, resolvePublic } from './webhooks.address.ts';
import { sendDelivery } from './webhooks.send.ts';
import { checkEndpointUrl } from './webhooks.service.ts';

describe('webhook addresses (SSRF)', () => {
  it('knows loopback, private, link-local and mapped addresses from public ones', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '100.64.0.1',
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuses a private endpoint at registration unless allowed', async () => {
    await expect(checkEndpointUrl('http://127.0.0.1:9/x', false)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      issues: [{ path: 'url' }],
    });
    await expect(checkEndpointUrl('http://[::1]/x', false)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(checkEndpointUrl('http://localhost/x', false)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(checkEndpointUrl('http://127.0.0.1:9/x', true)).resolves.toBeUndefined();
    await expect(resolvePublic('localhost', false)).rejects.toThrow(/private or loopback/);
  });

  it('checks the address again when delivering (a name resolving to loopback is not reached), follows no redirect, and times out', async () => {
    let hits = 0;
    let mode: 'redirect' | 'slow' = 'redirect';
    const server = createServer((_req, res) => {
      hits++;
      if (mode === 'redirect') res.writeHead(307, { location: 'http://127.0.0.1:1/' }).end();
      // 'slow': never answers
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const blocked = await sendDelivery(`http://localhost:${port}/`, {}, '{}', {
        timeoutMs: 2000,
        allowPrivate: false,
      });
      expect(blocked).toMatchObject({ ok: false, status: null });
      expect(blocked.error).toMatch(/private or loopback/);
      const literal = await sendDelivery(`http://127.0.0.1:${port}/`, {}, '{}', {
        timeoutMs: 2000,
        allowPrivate: false,
      });
      expect(literal.ok).toBe(false);
      expect(hits).toBe(0);

      const redirected = await sendDelivery(`http://localhost:${port}/`, {}, '{}', {
        timeoutMs: 2000,
        allowPrivate: true,
      });
      expect(redirected).toMatchObject({ ok: false, status: 307 });
      expect(hits).toBe(1);

      mode = 'slow';
      const slow = await sendDelivery(`http://127.0.0.1:${port}/`, {}, '{}', {
        timeoutMs: 300,
        allowPrivate: true,
      });
      expect(slow).toMatchObject({ ok: false, status: null, error: 'no answer within 0.3 s' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
