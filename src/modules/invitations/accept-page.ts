import type { FastifyInstance } from 'fastify';

/**
 * `/accept-invitation` is where invitation e-mails sent before the web app linked to. The
 * invitation page is now the app's (`/app/accept-invitation`, with the app's strict CSP and no
 * framing): this address answers a permanent redirect there, keeping the token and nothing else,
 * so links already sent keep working and there is one page to keep safe.
 */
export function registerAcceptPage(app: FastifyInstance): void {
  app.get<{ Querystring: { token?: string | string[] } }>(
    '/accept-invitation',
    { config: { public: true }, schema: { hide: true } },
    async (request, reply) => {
      const raw = request.query.token;
      const token = (Array.isArray(raw) ? raw[0] : raw)?.slice(0, 200) ?? '';
      const target = token
        ? `/app/accept-invitation?token=${encodeURIComponent(token)}`
        : '/app/accept-invitation';
      return reply
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .header('x-content-type-options', 'nosniff')
        .redirect(target, 301);
    },
  );
}
