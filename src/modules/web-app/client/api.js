// The app's only way to the service: the public API under /api/v1, with the person's access
// token from sessionStorage (never in a URL). Errors keep the API's body: code, message, issues.

import { t } from './i18n/index.js';
import { issueText } from './issue-text.js';
import { keepAnswer, keptAnswer } from './offline/cache.js';
import { offlineTexts } from './offline/texts.js';

const API = document.body.dataset.api || '/api/v1';
const TOKEN = 'sdcs.token';
const ORG = 'sdcs.organizationId';

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || t('error.status', { status }));
    this.status = status;
    this.code = body?.code ?? null;
    this.issues = Array.isArray(body?.issues) ? body.issues : [];
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
  save(token, organizationId) {
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
export function whenSignedOut(callback) {
  onSignedOut = callback;
}

function queryString(query) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The service could not be reached (offline, or the request never got an answer). */
export const isOffline = (error) => error instanceof ApiError && error.code === 'OFFLINE';

/**
 * Calls the API; answers the parsed body, or throws ApiError (code OFFLINE when the service cannot
 * be reached). A GET the service cannot answer is answered from the person's kept answers
 * (offline/cache.js) when there is one, unless `fresh` asks for the service's answer only.
 */
export async function call(method, path, { body, query, headers, fresh = false } = {}) {
  const token = session.token;
  const url = `${path}${queryString(query)}`;
  let response;
  try {
    response = await fetch(`${API}${url}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    const kept = method === 'GET' && !fresh ? await keptAnswer(url) : undefined;
    if (kept !== undefined) return kept;
    throw new ApiError(0, { code: 'OFFLINE', message: offlineTexts.unreachable });
  }
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { message: text };
  }
  if (!response.ok) {
    if (response.status === 401 && token) {
      session.clear();
      onSignedOut();
    }
    throw new ApiError(response.status, parsed);
  }
  if (method === 'GET') await keepAnswer(url, parsed);
  return parsed;
}

export const get = (path, query) => call('GET', path, { query });
export const post = (path, body, headers) => call('POST', path, { body, headers });

/** Uploads a file through the presigned POST of POST /media/presigned-url; answers its media id. */
export async function uploadFile(file, { entityId, fieldName }) {
  const presigned = await post('/media/presigned-url', {
    fileName: file.name,
    fileSize: file.size,
    entityId,
    fieldName,
    entityType: 'FormElementSubmission',
    ...(file.type ? { contentType: file.type } : {}),
  });
  const form = new FormData();
  for (const [key, value] of Object.entries(presigned.fields)) form.append(key, value);
  form.append('file', file);
  const response = await fetch(presigned.url, { method: 'POST', body: form });
  if (!response.ok) {
    const text = await response.text();
    let body = null;
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
const KNOWN = {
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
export function errorLines(error) {
  if (!(error instanceof ApiError)) {
    // fetch() rejects with a TypeError when the network or the service cannot be reached.
    if (error instanceof TypeError) return [t('error.network')];
    return [error?.message || t('error.unknown')];
  }
  const issues = error.issues.map(issueText).filter(Boolean);
  if (issues.length) return issues;
  if (KNOWN[error.message]) return [t(KNOWN[error.message])];
  if (PLAIN_CODES.has(error.code)) return [t('error.refused', { code: error.code })];
  return [error.message];
}
