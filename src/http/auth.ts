import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../domain/caller.ts';
import { unauthorized } from '../domain/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** The route needs no credential (health, docs, login, public dashboards). */
    public?: boolean;
  }
}

export type CredentialResolver = (bearer: string) => Promise<Caller | null>;

/** Reads `Authorization: Bearer …` on every non-public route and sets `request.caller`. */
export function registerAuth(app: FastifyInstance, resolve: CredentialResolver): void {
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request) => {
    if (request.is404 || request.routeOptions.config.public) return;
    const header = request.headers.authorization;
    if (!header) throw unauthorized();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1])
      throw unauthorized('Send the credential as `Authorization: Bearer <access token or API key>`');
    const caller = await resolve(match[1]);
    if (!caller) throw unauthorized('Invalid or expired credential');
    request.caller = caller;
  });
}

/** The caller of an authenticated route (the hook guarantees there is one). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw unauthorized();
  return request.caller;
}
