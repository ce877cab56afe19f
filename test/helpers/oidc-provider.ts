import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type KoaContext } from 'oidc-provider';

/**
 * A real OpenID Connect provider (oidc-provider) on a loopback port, for the OIDC sign-in tests.
 * Its login page is oidc-provider's development page: the "login" typed there becomes the
 * account, whose e-mail claim is that login itself (so `ada@example.com` signs in as that
 * address). Consent is granted without asking. `tamper` rewrites the ID token of the next token
 * responses (a test's attack); `signWith` signs a payload with the provider's own key or another.
 */
export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Rewrites the ID token the token endpoint answers, while set. */
  tamper: ((idToken: string) => string) | undefined;
  /** Signs `payload` (RS256) with the provider's key, or with a key of nobody's (`foreign`). */
  sign: (payload: Record<string, unknown>, key?: 'own' | 'foreign') => string;
  close: () => Promise<void>;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function decodeJwt(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

function signJwt(payload: Record<string, unknown>, key: KeyObject, kid: string): string {
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid })}.${b64(payload)}`;
  const signature = createSign('RSA-SHA256').update(input).sign(key).toString('base64url');
  return `${input}.${signature}`;
}

export async function startTestProvider(opts: { redirectUris: string[] }): Promise<TestProvider> {
  const own = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const kid = 'test-key-1';
  let handler: ((req: any, res: any) => void) | undefined;
  const server: Server = createServer((req, res) => handler?.(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const result: TestProvider = {
    issuer,
    clientId: 'sdcs-test',
    clientSecret: 'a-client-secret-for-the-tests-0123456789',
    tamper: undefined,
    sign: (payload, key = 'own') => signJwt(payload, key === 'own' ? own : foreign, kid),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: result.clientId,
        client_secret: result.clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [{ ...own.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: id, email_verified: true, name: `Person ${id.split('@')[0]}` }),
    }),
    // Consent is given without a page: the tests are about SDCS's side of the flow.
    loadExistingGrant: async (ctx: KoaContext) => {
      const grantId =
        ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
    features: { devInteractions: { enabled: true } },
  });
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && result.tamper && body?.id_token) {
      ctx.body = { ...body, id_token: result.tamper(body.id_token) };
    }
  });
  handler = provider.callback();
  return result;
}

/**
 * Goes through the provider's pages as a browser would, without one: from the address SDCS's
 * start redirected to, through the login page (as `login`), to the redirect back to SDCS.
 * Answers that last address (the callback with code, state and iss).
 */
export async function signInAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const cookies = new Map<string, string>();
  const remember = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  };
  const cookie = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 10; hop++) {
    const isLoginPage = /\/interaction\/[^/]+$/.test(url.pathname);
    const res = await fetch(url, {
      redirect: 'manual',
      headers: {
        cookie: cookie(),
        ...(isLoginPage ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(isLoginPage
        ? {
            method: 'POST',
            body: new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString(),
          }
        : {}),
    });
    remember(res);
    const location = res.headers.get('location');
    if (!location) throw new Error(`the provider answered ${res.status} at ${url}: ${await res.text()}`);
    const next = new URL(location, url);
    if (next.origin !== url.origin && !next.pathname.startsWith('/interaction')) return next;
    url = next;
  }
  throw new Error('the provider kept redirecting');
}
