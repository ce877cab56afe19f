import createClient from 'openapi-fetch';
import type { paths } from '../../../api-types/openapi';
import { dashboardId } from './page.ts';
import type { AccessRequest, CodeSentAnswer, Granted, Problem, View } from './types.ts';

// The page's calls to the public dashboards API, through openapi-fetch over the types generated
// from the OpenAPI document: a wrong path, parameter or body is a compile error. The access
// token of this tab (from the gate) lives in sessionStorage, or in memory when storage is refused.

const client = createClient<paths>({ baseUrl: location.origin });
const TOKEN_KEY = `sdcs.dashboard.${dashboardId}`;

function readToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

let memoryToken = readToken();

export const hasToken = (): boolean => memoryToken !== null;

export function writeToken(token: string | null): void {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage refused (private mode): the token lives in memory only
  }
  memoryToken = token;
}

const problemOf = (error: unknown): Problem => (error && typeof error === 'object' ? (error as Problem) : {});

/** The view, or the status of the refusal with its body (status 0: the service was not reached). */
export type ViewAnswer = { ok: true; view: View } | { ok: false; status: number; problem: Problem };

/** The dashboard's view (narrowed to one site when `siteId` is set); status 0 when unreachable. */
export async function fetchView(siteId: string): Promise<ViewAnswer> {
  try {
    const { data, error, response } = await client.GET('/api/v1/public/dashboards/{id}', {
      params: { path: { id: dashboardId }, query: siteId ? { siteIds: siteId } : {} },
      headers: memoryToken ? { authorization: `Bearer ${memoryToken}` } : {},
    });
    if (data) return { ok: true, view: data };
    return { ok: false, status: response.status, problem: problemOf(error) };
  } catch {
    return { ok: false, status: 0, problem: {} };
  }
}

export type AccessAnswer =
  | { status: 200; granted: Granted }
  | { status: 202; sent: CodeSentAnswer }
  | { status: number; problem: Problem; retryAfter: string | null };

/** Posts what the gate asks for; throws when the service cannot be reached. */
export async function askForAccess(payload: AccessRequest): Promise<AccessAnswer> {
  const { data, error, response } = await client.POST('/api/v1/public/dashboards/{id}/access', {
    params: { path: { id: dashboardId } },
    body: payload,
  });
  if (data && response.status === 202 && 'codeSent' in data) return { status: 202, sent: data };
  if (data && 'accessToken' in data) return { status: 200, granted: data };
  return {
    status: response.status,
    problem: problemOf(error),
    retryAfter: response.headers.get('retry-after'),
  };
}
