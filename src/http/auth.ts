import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { Database, OpenTransaction, Tx } from '../db/client.ts';
import type { Role } from '../db/schema/index.ts';
import type { Caller } from '../domain/caller.ts';
import { forbidden, unauthorized } from '../domain/errors.ts';
import { ROLES, roleAtLeast } from '../domain/roles.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
    /**
     * Runs `fn` in a transaction of the caller's organization (row-level security limits it to
     * that organization's rows) and hands it the caller.
     */
    tenant<T>(fn: (tx: Tx, caller: Caller) => Promise<T>): Promise<T>;
  }
  interface FastifyContextConfig {
    /** The route needs no credential (health, docs, login, public dashboards, signed uploads). */
    public?: boolean;
    /** The lowest role that may call the route; every role below it is refused with 403. */
    minRole?: Role;
  }
}

/** Resolves bearer values (access tokens, API keys) to callers; null when refused. */
export interface CredentialResolver {
  /** The caller, in one statement outside any transaction (requests that carry a body). */
  lookup(bearer: string): Promise<Caller | null>;
  /**
   * A transaction already made the caller's organization's, opened with the credential lookup
   * in one round trip (null: refused, and nothing left open).
   */
  open(bearer: string): Promise<{ caller: Caller; transaction: OpenTransaction<unknown> } | null>;
}

/** The transaction the credential hook opened and the request's first `tenant` call will use. */
const OPENED = Symbol('sdcs.openedTransaction');
type WithOpened = FastifyRequest & { [OPENED]?: OpenTransaction<unknown> | undefined };
/** Methods without a body: their handler runs as soon as the hook is done. */
const BODILESS = new Set(['GET', 'HEAD']);

/** Rolls back the hook's transaction when the request ended without using it. */
async function endOpened(request: FastifyRequest): Promise<void> {
  const opened = (request as WithOpened)[OPENED];
  if (!opened) return;
  (request as WithOpened)[OPENED] = undefined;
  await opened.end();
}

/**
 * Access, declared on each route and enforced here, in one place:
 * - every route states `config.public` or `config.minRole` (a route with neither stops start-up);
 * - the OpenAPI operation shows it (`x-min-role`, a line of its description, `security: []` when public);
 * - on every non-public route the bearer credential is resolved once into `request.caller`
 *   (401 without one), then the role is checked against `minRole` (403) before the body is read.
 * Checks that depend on a record (site scope, ownership) stay in the services' policy functions.
 */
export function registerAuth(
  app: FastifyInstance,
  resolve: CredentialResolver,
  database: Database,
  /** Called before a 401 of a missing or refused credential (the rate limit counts it). */
  beforeRefusal?: { count?: (request: FastifyRequest, reply: FastifyReply) => Promise<void> },
): void {
  app.decorateRequest('caller', null);
  app.decorateRequest('tenant', function tenant<
    T,
  >(this: FastifyRequest, fn: (tx: Tx, caller: Caller) => Promise<T>): Promise<T> {
    const caller = callerOf(this);
    const opened = (this as WithOpened)[OPENED];
    if (opened) {
      (this as WithOpened)[OPENED] = undefined;
      return opened.run(() => fn(opened.tx, caller));
    }
    return database.tenant(caller.organizationId, (tx) => fn(tx, caller));
  });
  app.addHook('onResponse', endOpened);
  app.addHook('onRequestAbort', endOpened);
  app.addHook('onTimeout', endOpened);

  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { public?: boolean; minRole?: Role };
    const name = `${route.method} ${route.url}`;
    if (config.public) {
      if (config.minRole) throw new Error(`${name} is public and has a minRole: choose one`);
      route.schema = { ...route.schema, security: [] };
      return;
    }
    if (!config.minRole) throw new Error(`${name} declares neither config.minRole nor config.public`);
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    const needs =
      config.minRole === 'OWNER'
        ? 'Only OWNER members (and their API keys) may call this.'
        : `Needs the role ${config.minRole} or higher (${rolesFrom(config.minRole)}).`;
    // OpenAPI keeps `x-` keys of a route schema as extensions of the operation.
    route.schema = {
      ...schema,
      'x-min-role': config.minRole,
      description: schema['description'] ? `${schema['description']}\n\n${needs}` : needs,
    } as FastifySchema;
  });

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (request.is404 || config.public) return;
    // Every refusal of a credential counts against the client address (429 once it is spent).
    const refuse = async (message?: string) => {
      await beforeRefusal?.count?.(request, reply);
      return unauthorized(message);
    };
    const header = request.headers.authorization;
    if (!header) throw await refuse();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1])
      throw await refuse('Send the credential as `Authorization: Bearer <access token or API key>`');
    // A read (no body to wait for) gets its transaction here: BEGIN, the credential and the
    // tenant settings in one round trip, used by the handler's first `request.tenant`. A request
    // with a body looks the credential up alone, so no connection is held while the body arrives.
    let caller: Caller | null;
    if (BODILESS.has(request.method)) {
      const opened = await resolve.open(match[1]);
      caller = opened?.caller ?? null;
      if (opened) (request as WithOpened)[OPENED] = opened.transaction;
    } else {
      caller = await resolve.lookup(match[1]);
    }
    if (!caller) throw await refuse('Invalid or expired credential');
    request.caller = caller;
    if (config.minRole && !roleAtLeast(caller.role, config.minRole)) {
      await endOpened(request);
      throw forbidden(refusal(config.minRole, caller.role));
    }
  });
}

const rolesFrom = (minimum: Role) => ROLES.filter((r) => roleAtLeast(r, minimum)).join(', ');

function refusal(needed: Role, actual: Role): string {
  return needed === 'OWNER'
    ? `Only organization owners can do this; your role is ${actual}`
    : `This needs the ${needed} role or higher; your role is ${actual}`;
}

/** The caller of an authenticated route (the hook guarantees there is one). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw unauthorized();
  return request.caller;
}
