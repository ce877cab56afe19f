import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { API_PREFIX, buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { Database } from '../../src/db/client.ts';
import type { Method, ResponseOf } from './responses.ts';

export interface TestContext {
  app: FastifyInstance;
  database: Database;
  config: Config;
  /** PostgreSQL mode: the test database's URL. */
  url?: string;
}

/** A fresh migrated database for one test file: a copy of the run's template. */
export async function openTestDatabase(): Promise<{
  database: Database;
  drop: () => Promise<void>;
  /** The database's URL in PostgreSQL mode (to open a second process-like connection pool). */
  url?: string;
}> {
  const url = process.env['DATABASE_URL'];
  if (url) {
    const name = `sdcs_t_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplateDb')}`);
    const target = new URL(url);
    target.pathname = `/${name}`;
    const database = await Database.open({ databaseUrl: target.toString() });
    return {
      database,
      url: target.toString(),
      drop: async () => {
        await database.close();
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      },
    };
  }
  const dump = await readFile(inject('pgliteTemplate'));
  const database = await Database.open({ loadDataDir: new Blob([dump]) });
  return { database, drop: () => database.close() };
}

/** Configuration for tests: no bootstrap, a fixed secret, a temporary data directory. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({
    SDCS_DATA_DIR: `/tmp/sdcs-test-${process.pid}`,
    SDCS_SECRET: 'test-secret-test-secret-test-secret-0123',
    SDCS_BOOTSTRAP: 'false',
    SDCS_ADMIN_EMAILS: 'admin@platform.test',
    // Tests log in far more often than a person would.
    SDCS_AUTH_ATTEMPTS_PER_MINUTE: '100000',
    // Tests call far more often than a client would, on a shared machine whose event loop stalls.
    SDCS_RATE_LIMIT_PER_MINUTE: '0',
    SDCS_MAX_EVENT_LOOP_DELAY_MS: '0',
  });
  return { ...base, ...overrides };
}

/** Builds the app over a fresh database before the file's tests and closes it after. */
export function useTestApp(overrides: Partial<Config> = {}): TestContext {
  const ctx = {} as TestContext;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await openTestDatabase();
    drop = opened.drop;
    ctx.database = opened.database;
    ctx.url = opened.url;
    ctx.config = testConfig(overrides);
    ctx.app = await buildApp({ database: ctx.database, config: ctx.config });
    await ctx.app.ready();
  });
  afterAll(async () => {
    await ctx.app?.close();
    await drop?.();
  });
  return ctx;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, unknown>;
}

/** Calls the API in-process; `url` is relative to /api/v1. */
export async function api<T = any>(
  t: TestContext,
  method: Method,
  url: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers['authorization'] = `Bearer ${options.token}`;
  const response = await t.app.inject({
    method,
    url: `${API_PREFIX}${url}`,
    headers,
    ...(options.body === undefined ? {} : { payload: options.body as object }),
  });
  const text = response.body;
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.statusCode, body: body as T, headers: response.headers };
}

/** An answer whose success body is typed by the route's response schema. */
export interface TypedResponse<T> extends ApiResponse {
  /** The body as the route's 200 response (check the status first; error bodies are in `body`). */
  json(): T;
}

export interface CallOptions {
  token?: string;
  headers?: Record<string, string>;
}

/**
 * The API with typed answers: `client(t).get(`/activities?formId=${id}&key=fuel`)` answers a
 * response whose `json()` is the route's 200 schema as a type (see `responses.ts`).
 */
export function client(t: TestContext, defaults: CallOptions = {}) {
  const call =
    <M extends Method>(method: M) =>
    async <U extends string>(
      url: U,
      options: CallOptions & { body?: unknown } = {},
    ): Promise<TypedResponse<ResponseOf<M, U>>> => {
      const res = await api(t, method, url, { ...defaults, ...options });
      return { ...res, json: () => res.body as ResponseOf<M, U> };
    };
  return {
    get: call('GET'),
    post: call('POST'),
    put: call('PUT'),
    patch: call('PATCH'),
    delete: call('DELETE'),
  };
}
export type Client = ReturnType<typeof client>;
