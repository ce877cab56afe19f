import type { FastifyInstance } from 'fastify';

/** Framing refused: no other site may show an API answer, the docs or the OpenAPI document in a frame. */
export const NO_FRAMING_CSP = "frame-ancestors 'none'";

/**
 * Headers every answer carries unless its route chose otherwise:
 * - `X-Content-Type-Options: nosniff`, so a browser never reads a JSON body (which may echo user
 *   text) as HTML or script;
 * - framing refused (`Content-Security-Policy: frame-ancestors 'none'` and, for older browsers,
 *   `X-Frame-Options: DENY`). A route that sets its own Content-Security-Policy owns its framing
 *   rule: the public dashboard page may be embedded on purpose, downloads are sandboxed.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('x-content-type-options')) reply.header('x-content-type-options', 'nosniff');
    if (!reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', NO_FRAMING_CSP);
      if (!reply.hasHeader('x-frame-options')) reply.header('x-frame-options', 'DENY');
    }
    return payload;
  });
}
