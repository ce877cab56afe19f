import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustProxyWarning } from '../../src/config.ts';
import { api, useTestApp } from '../helpers/app.ts';

/**
 * Issue 25, items 9 to 11: the HTTP edge. Slow or oversized requests are cut off early, every
 * answer carries nosniff and a framing rule, and `SDCS_TRUST_PROXY=true` is warned about.
 */
const t = useTestApp({ headersTimeoutMs: 500, requestTimeoutMs: 1_500 });
let port = 0;

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await t.app.close();
});

interface Exchange {
  /** What the server answered before closing (the start of it). */
  answer: string;
  /** Bytes of body the client managed to send before the server closed the connection. */
  sent: number;
}

/** Sends `head` and `bytes` of body, then waits for the answer (or the connection's end). */
function sendThenWait(head: string, bytes: number): Promise<{ answer: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (data) => {
      answer += data.toString('latin1');
      if (/\r\n\r\n[\s\S]*<\/Error>|\}$/.test(answer)) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ answer }));
    socket.write(head);
    socket.write(Buffer.alloc(bytes, 0x61));
  });
}

/**
 * Sends `head`, then body chunks (`chunk` bytes, one every `everyMs`) until the server answers
 * and closes, or `maxBytes` are sent. Resolves with the answer and how much body was sent.
 */
function trickle(head: string, chunk: number, everyMs: number, maxBytes: number): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearInterval(timer);
      socket.destroy();
      resolve({ answer, sent });
    };
    socket.on('data', (data) => {
      answer += data.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.write(head);
    if (chunk === 0) return;
    const piece = Buffer.alloc(chunk, 0x61);
    timer = setInterval(() => {
      if (socket.destroyed || answer.length > 0 || sent >= maxBytes) {
        if (sent >= maxBytes) finish();
        return;
      }
      socket.write(piece);
      sent += piece.length;
    }, everyMs);
  });
}

describe('slow and oversized requests (item 10)', () => {
  it('closes a connection whose headers trickle in past the headers timeout, with 408', async () => {
    // Half a request head, then nothing: the server must not wait for the rest forever.
    const { answer } = await trickle('GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ', 0, 0, 0);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  }, 20_000);

  it('closes a connection whose body trickles in past the request timeout, with 408', async () => {
    const head =
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n';
    const { answer, sent } = await trickle(head, 10, 100, 100_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(sent).toBeLessThan(100_000);
  }, 20_000);

  // The client sends the head and 1 MiB of a body announced as 200 MiB, then waits: the server
  // must answer from what it has, not wait for (or read) the rest.
  it('refuses a 200 MiB multipart upload without a boundary from its head', async () => {
    const head = `POST /api/v1/media/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data\r\nContent-Length: ${200 * 1024 * 1024}\r\n\r\n`;
    const { answer } = await sendThenWait(head, 1024 * 1024);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('MalformedPOSTRequest');
  }, 20_000);

  it('refuses a multipart body whose preamble runs past its cap without reaching a part', async () => {
    const head = `POST /api/v1/media/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: ${200 * 1024 * 1024}\r\n\r\n`;
    const { answer } = await sendThenWait(head, 1024 * 1024);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('MalformedPOSTRequest');
  }, 20_000);

  it('refuses a form field past its cap before the file', async () => {
    const preface = '--XyZ\r\nContent-Disposition: form-data; name="key"\r\n\r\n';
    const head = `POST /api/v1/media/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: ${200 * 1024 * 1024}\r\n\r\n${preface}`;
    const { answer } = await sendThenWait(head, 1024 * 1024);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('too long');
  }, 20_000);
});

describe('headers of every answer (item 11)', () => {
  const expectHardened = (headers: Record<string, unknown>) => {
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(String(headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  };

  it('JSON answers, errors, /docs and /openapi.json refuse sniffing and framing', async () => {
    expectHardened((await api(t, 'GET', '/health')).headers);
    const refused = await api(t, 'GET', '/sites');
    expect(refused.status).toBe(401);
    expectHardened(refused.headers);
    expectHardened((await api(t, 'GET', '/no-such-route')).headers);
    for (const url of ['/openapi.json', '/docs/', '/docs/json']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expectHardened(res.headers);
    }
  });

  it('leaves the public dashboard page its own policy (it may be embedded), still nosniff', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/d/00000000-0000-4000-8000-000000000000' });
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['x-frame-options']).toBeUndefined();
    expect(String(page.headers['content-security-policy'])).not.toContain('frame-ancestors');
  });
});

describe('SDCS_TRUST_PROXY=true (item 9)', () => {
  it('is warned about at start-up, recommending a hop count or the proxy addresses', () => {
    const warning = trustProxyWarning({ trustProxy: true });
    expect(warning).toMatch(/leftmost X-Forwarded-For/);
    expect(warning).toMatch(/SDCS_TRUST_PROXY=1/);
    expect(trustProxyWarning({ trustProxy: 1 })).toBeUndefined();
    expect(trustProxyWarning({ trustProxy: '10.0.0.0/8' })).toBeUndefined();
    expect(trustProxyWarning({ trustProxy: false })).toBeUndefined();
  });
});
