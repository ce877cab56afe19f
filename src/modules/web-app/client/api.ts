// The app's only way to the service: the public API under /api/v1, through openapi-fetch typed by
// the API's own OpenAPI document (src/api-types/openapi.d.ts, generated): a path the service does
// not have, a missing parameter or a wrong body is a compile error. The person's access token
// travels in a header (never in a URL). Errors keep the API's body: code, message, issues.

import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../../../api-types/openapi.js';
import { t } from './i18n/index.js';
import { issueText } from './issue-text.js';
import { keepAnswer, keptAnswer } from './offline/cache.js';
import { offlineTexts } from './offline/texts.js';

const API = document.body.dataset.api || '/api/v1';
const TOKEN = 'sdcs.token';
const ORG = 'sdcs.organizationId';

/** One reason of a refusal, as the service words it (the contract's `issues`). */
export type Issue = { path?: string; message: string; code?: string; [more: string]: unknown };

/** The body of a refusal: `{code, message, issues}` (any of them may be missing). */
type ErrorBody = { code?: string | null; message?: string; issues?: unknown; [more: string]: unknown } | null;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string | null;
  readonly issues: Issue[];
  readonly body: ErrorBody;
  constructor(status: number, body: ErrorBody) {
    super(body?.message || t('error.status', { status }));
    this.status = status;
    this.code = body?.code ?? null;
    this.issues = Array.isArray(body?.issues) ? (body.issues as Issue[]) : [];
    this.body = body;
  }
}

export const session = {
  get token() {
    return sessionStorage.getItem(TOKEN);
  },
  get organizationId() {
    return sessionStorage.getItem(ORG);
  },
  save(token: string, organizationId: string) {
    sessionStorage.removeItem('sdcs.userId'); // kept answers belong to whoever /me names next
    sessionStorage.setItem(TOKEN, token);
    sessionStorage.setItem(ORG, organizationId);
  },
  clear() {
    sessionStorage.removeItem('sdcs.userId');
    sessionStorage.removeItem(TOKEN);
    sessionStorage.removeItem(ORG);
  },
};

let onSignedOut = () => {};
/** Called when the service no longer accepts the token (expired, revoked). */
export function whenSignedOut(callback: () => void) {
  onSignedOut = callback;
}

/** A query as before openapi-fetch: empty values left out, arrays as repeated keys (`a=1&a=2`). */
function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
  }
  return params.toString();
}

/** The service could not be reached (offline, or the request never got an answer). */
export const isOffline = (error: unknown) => error instanceof ApiError && error.code === 'OFFLINE';

// The path under /api/v1 with its query: the key of a kept answer (offline/cache.ts).
const keyOf = (request: Request) => {
  const url = new URL(request.url);
  const base = new URL(API, url).pathname.replace(/\/+$/, '');
  return `${url.pathname.slice(base.length)}${url.search}`;
};
const KEPT = 'x-sdcs-kept-answer';

/** The person's token on every request; a 401 with a token signs the person out. */
const signedIn: Middleware = {
  onRequest({ request }) {
    request.headers.set('accept', 'application/json');
    const token = session.token;
    if (token) request.headers.set('authorization', `Bearer ${token}`);
  },
  onResponse({ request, response }) {
    if (response.status === 401 && request.headers.has('authorization')) {
      session.clear();
      onSignedOut();
    }
  },
};

/** A request that got no answer: ApiError with code OFFLINE. */
const offline: Middleware = {
  onError() {
    return new ApiError(0, { code: 'OFFLINE', message: offlineTexts.unreachable });
  },
};

/**
 * Network first for every GET: the answer is kept (offline/cache.ts); one the service cannot give
 * is answered from the person's kept answers when there is one.
 */
const keptAnswers: Middleware = {
  async onResponse({ request, response }) {
    if (request.method !== 'GET' || !response.ok || response.headers.has(KEPT)) return;
    const text = await response.clone().text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = { message: text };
    }
    await keepAnswer(keyOf(request), parsed);
  },
  async onError({ request }) {
    if (request.method !== 'GET') return;
    const kept = await keptAnswer(keyOf(request));
    if (kept === undefined) return;
    return new Response(JSON.stringify(kept), {
      headers: { 'content-type': 'application/json', [KEPT]: '1' },
    });
  },
};

const options = {
  // The generated paths start with /api/v1: the base is what the page's prefix has before it.
  baseUrl: API.replace(/\/api\/v1\/?$/, ''),
  querySerializer: queryString,
  // The page's fetch at the time of the request (not the one when the module loaded).
  fetch: (request: Request) => globalThis.fetch(request),
};

/** The API, typed by its OpenAPI document; GETs fall back to kept answers without a connection. */
export const api = createClient<paths>(options);
api.use(signedIn, offline, keptAnswers);

/** The same API without kept answers: for what must be the service's answer now (the outbox's checks). */
export const apiNow = createClient<paths>(options);
apiNow.use(signedIn, offline);

type Outcome<D> = { data?: D; error?: unknown; response: Response };

/** The body of a successful answer, or throws ApiError with the service's {code, message, issues}. */
export async function answer<D>(pending: Promise<Outcome<D>>): Promise<D> {
  const { data, error, response } = await pending;
  if (response.ok) return data as D;
  const body: ErrorBody =
    error === undefined || error === ''
      ? null
      : typeof error === 'object'
        ? (error as ErrorBody)
        : { message: String(error) };
  throw new ApiError(response.status, body);
}

/** Uploads a file through the presigned POST of POST /media/presigned-url; answers its media id. */
export async function uploadFile(
  file: File,
  { entityId, fieldName }: { entityId: string; fieldName: string },
) {
  const presigned = await answer(
    api.POST('/api/v1/media/presigned-url', {
      body: {
        fileName: file.name,
        fileSize: file.size,
        entityId,
        fieldName,
        entityType: 'FormElementSubmission',
        ...(file.type ? { contentType: file.type } : {}),
      },
    }),
  );
  const form = new FormData();
  for (const [key, value] of Object.entries(presigned.fields)) form.append(key, String(value));
  form.append('file', file);
  const response = await fetch(presigned.url, { method: 'POST', body: form });
  if (!response.ok) {
    const text = await response.text();
    let body: ErrorBody = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = { message: t('error.uploadRefused', { status: response.status }) };
    }
    throw new ApiError(response.status, body);
  }
  return presigned.mediaId;
}

/**
 * The service's sentences the app knows, by their English text: shown in the person's language.
 * Other messages of the service (naming a field, a value, a site) are shown as the service wrote them.
 */
const KNOWN: Record<string, string> = {
  'Invalid e-mail or password': 'error.invalidCredentials',
  'This account has no active membership': 'error.noMembership',
};

/**
 * The refusal codes whose message says nothing the code does not (the contract's fixed messages,
 * and the codes of load and size): the app says them in the person's language (`error.refused`).
 * A CONFLICT keeps the service's message, which names what conflicts (a lock and its reason).
 */
const PLAIN_CODES = new Set([
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'REQUEST_TIMEOUT',
  'PAYLOAD_TOO_LARGE',
  'TOO_MANY_REQUESTS',
  'REQUEST_HEADER_FIELDS_TOO_LARGE',
  'INTERNAL_SERVER_ERROR',
  'SERVICE_UNAVAILABLE',
]);

/**
 * The messages of an error, for people, in their language where the app knows the sentence: the
 * issues (the service's specific reasons, naming the element or the lock), else a sentence the app
 * knows, else the code's sentence in the person's language, else the service's message.
 */
export function errorLines(error: unknown): string[] {
  if (!(error instanceof ApiError)) {
    // fetch() rejects with a TypeError when the network or the service cannot be reached.
    if (error instanceof TypeError) return [t('error.network')];
    return [(error as { message?: string } | null)?.message || t('error.unknown')];
  }
  const issues = error.issues.map(issueText).filter(Boolean);
  if (issues.length) return issues;
  const known = KNOWN[error.message];
  if (known) return [t(known)];
  if (error.code && PLAIN_CODES.has(error.code)) return [t('error.refused', { code: error.code })];
  return [error.message];
}
