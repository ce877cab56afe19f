// Issue 41, item 1: the send timeout cuts an answer whose client takes nothing, not one whose
// client keeps reading (the watch over every streamed answer, without a database).
//
// What the service sees of a client's reading is the kernel taking more of the answer, which on
// Linux happens in steps of up to about a third of the socket's send buffer (up to 4 MB here): a
// client reading 640 KB/s was seen to progress every 2.5 s. So the client below reads at a few
// MB/s, and the send timeout is 2 s.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { registerSendTimeout } from '../../src/http/send-timeout.ts';
import { listen, until } from './stalled-clients.ts';

const SEND_TIMEOUT_MS = 2_000;
let app: FastifyInstance;
let port: number;
/** Whether the server side of the last answer was closed before it was sent whole. */
let cut = false;

beforeAll(async () => {
  app = Fastify();
  registerSendTimeout(app, SEND_TIMEOUT_MS);
  // 64 MB of text, made as it is read: far more than the connection's buffers hold.
  app.get('/big', async (_request, reply) => {
    cut = false;
    let left = 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) cut = true;
    });
    return reply.type('text/plain').send(
      new Readable({
        read() {
          this.push(left-- > 0 ? chunk : null);
        },
      }),
    );
  });
  port = await listen(app);
});

afterAll(() => app?.close());

const get = () =>
  new Promise<IncomingMessage>((resolve, reject) => {
    const req = httpRequest({ port, path: '/big', agent: false }, resolve);
    req.on('error', reject);
    req.end();
  });

it('cuts an answer whose client stops reading, after the send timeout', async () => {
  const res = await get();
  res.on('error', () => undefined);
  await new Promise((r) => res.once('data', r));
  res.pause();
  const since = performance.now();
  expect(await until(() => cut, SEND_TIMEOUT_MS + 5_000)).toBe(true);
  expect(performance.now() - since).toBeGreaterThan(SEND_TIMEOUT_MS * 0.6);
  res.destroy();
}, 15_000);

it('does not cut a client that keeps reading, for twice the send timeout', async () => {
  const res = await get();
  res.on('error', () => undefined);
  res.pause();
  // At most 256 KB every 50 ms: slower than the server could send, but never still for long.
  const end = performance.now() + 2 * SEND_TIMEOUT_MS;
  let read = 0;
  while (performance.now() < end) {
    const chunk = res.read(Math.min(256 * 1024, res.readableLength)) as Buffer | null;
    if (chunk) read += chunk.length;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(read).toBeGreaterThan(0);
  expect(cut).toBe(false);
  res.destroy();
}, 15_000);
