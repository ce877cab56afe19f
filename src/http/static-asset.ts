import type { FastifyReply } from 'fastify';

/** A built file served as is: its media type and bytes. */
export interface StaticAsset {
  type: string;
  body: Buffer;
}

/**
 * Answers a content-hashed file (cached for a year, never sniffed), or a plain 404 that is not
 * cached when there is no such file. Shared by the web app and the public dashboard page.
 */
export function sendAsset(reply: FastifyReply, found: StaticAsset | undefined) {
  if (!found) {
    return reply
      .code(404)
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'no-store')
      .send('Not found');
  }
  return reply
    .type(found.type)
    .header('cache-control', 'public, max-age=31536000, immutable')
    .header('x-content-type-options', 'nosniff')
    .send(found.body);
}
