import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, with whether its signature verified (Standard Webhooks' reference code). */
export interface Received {
  path: string;
  id: string;
  headers: Record<string, string>;
  body: { type: string; timestamp: string; data: any };
  verified: boolean;
}

/**
 * A webhook receiver on 127.0.0.1 started by a test: it verifies every request with the
 * `standardwebhooks` package against the secret set for its path, and answers the statuses queued
 * for that path (200 once the queue is empty).
 */
export async function startReceiver() {
  const received: Received[] = [];
  const secrets = new Map<string, string>();
  const statuses = new Map<string, number[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
      );
      let verified = false;
      const secret = secrets.get(path);
      try {
        if (secret) {
          new Webhook(secret).verify(raw, headers);
          verified = true;
        }
      } catch {
        verified = false;
      }
      received.push({ path, id: headers['webhook-id'] ?? '', headers, body: JSON.parse(raw), verified });
      const status = statuses.get(path)?.shift() ?? 200;
      if (status >= 300 && status < 400) res.setHeader('location', 'http://127.0.0.1:1/elsewhere');
      res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    received,
    url: (path: string) => `${base}${path}`,
    /** Sets the secret requests to `path` are verified with. */
    secret: (path: string, secret: string) => secrets.set(path, secret),
    /** Queues the statuses the next requests to `path` are answered with. */
    fail: (path: string, ...codes: number[]) => statuses.set(path, codes),
    at: (path: string) => received.filter((r) => r.path === path),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
