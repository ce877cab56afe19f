import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tx } from '../db/client.ts';

/**
 * Runs `fn` in a new transaction of the caller's organization, each call its own: for services
 * that must not hold a transaction while they wait (calculations run between two of them).
 */
export const tenantRun =
  (request: FastifyRequest) =>
  <T>(fn: (tx: Tx) => Promise<T>): Promise<T> =>
    request.tenant((tx) => fn(tx));

/** Aborted when the client closes the connection before the answer is sent. */
export function clientGone(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.once('close', onClose);
  request.raw.once('aborted', () => controller.abort());
  return controller.signal;
}
