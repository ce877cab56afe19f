import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/**
 * Watches a streamed answer and destroys its connection when the client has accepted no byte for
 * `ms` while the answer had bytes waiting to go: the response closes, and whatever its producer
 * held (an export's transaction and connection, a file handle) is released by the producer's own
 * reaction to the close. A producer that is slow to read (nothing waiting to be sent) is not a
 * stall. Progress is the kernel taking more of the answer, which Linux does in steps of up to a
 * third of the send buffer (~1.5 MB): a client must take about that much per timeout. Node's own timeouts do not cover this: `requestTimeout` ends once the request has arrived,
 * and a socket timeout would also cut requests that are merely slow to answer.
 */
export function watchSend(res: ServerResponse, ms: number, log?: FastifyBaseLogger): void {
  const socket = res.socket;
  if (!socket || typeof socket.setTimeout !== 'function') return; // not a network answer (inject)
  let marker = -1;
  let since = 0;
  const check = setInterval(
    () => {
      if (socket.destroyed) return stop();
      // Bytes handed to the socket minus those still queued: what the client's side has taken.
      const taken = socket.bytesWritten - socket.writableLength;
      const waiting = socket.writableLength > 0 || res.writableNeedDrain;
      const now = performance.now();
      if (!waiting || taken !== marker) {
        marker = taken;
        since = now;
        return;
      }
      if (now - since >= ms) {
        stop();
        log?.warn(
          { sendTimeoutMs: ms, bytesTaken: taken },
          'the client stopped reading the answer: connection closed after the send timeout',
        );
        // A reset, not a close: a close would leave the unsent bytes for the kernel to deliver to
        // the client that does not read them (an orphaned connection holding its buffers).
        if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
        else socket.destroy();
      }
    },
    Math.max(50, Math.min(1_000, Math.floor(ms / 4))),
  );
  check.unref();
  const stop = () => clearInterval(check);
  res.once('close', stop);
}

/** Arms `watchSend` on every streamed answer of the app (SDCS_SEND_TIMEOUT_SECONDS). */
export function registerSendTimeout(app: FastifyInstance, ms: number): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (payload && typeof (payload as { pipe?: unknown }).pipe === 'function') {
      watchSend(reply.raw, ms, request.log);
    }
  });
}
