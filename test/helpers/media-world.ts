import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { API_PREFIX, buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { openTestDatabase, type TestContext, testConfig } from './app.ts';

/** A test app whose clock the test moves (`world.now`), over a fresh database and data dir. */
export interface MediaWorld extends TestContext {
  now: Date;
}

export function useMediaApp(overrides: Partial<Config> = {}, storage?: () => Storage): MediaWorld {
  const world = { now: new Date() } as MediaWorld;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await openTestDatabase();
    drop = opened.drop;
    world.database = opened.database;
    world.config = testConfig({
      dataDir: `/tmp/sdcs-media-${process.pid}-${randomBytes(4).toString('hex')}`,
      ...overrides,
    });
    world.app = await buildApp({
      database: world.database,
      config: world.config,
      clock: () => world.now,
      ...(storage ? { storage: storage() } : {}),
    });
    await world.app.ready();
  });
  afterAll(async () => {
    await world.app?.close();
    await drop?.();
  });
  return world;
}

export interface FilePart {
  data: Buffer;
  fileName?: string;
  contentType?: string;
}

/** A multipart/form-data body: the fields in order, then `file` (as browsers and curl -F send it). */
export function multipart(
  fields: [string, string][],
  file?: FilePart,
): { body: Buffer; contentType: string } {
  const boundary = `----sdcs${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.fileName ?? 'upload.bin'}"\r\n` +
          `Content-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      file.data,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POSTs a multipart body to a URL of the app (the host part of `url` is ignored). */
export async function postForm(
  app: FastifyInstance,
  url: string,
  form: { body: Buffer; contentType: string },
) {
  const path = new URL(url).pathname;
  const res = await app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': form.contentType },
    payload: form.body,
  });
  return { status: res.statusCode, body: res.body, headers: res.headers };
}

/** GETs a URL of the app (path and query of `url`). */
export async function getUrl(app: FastifyInstance, url: string) {
  const parsed = new URL(url);
  return app.inject({ method: 'GET', url: `${parsed.pathname}${parsed.search}` });
}

export const MEDIA_API = `${API_PREFIX}/media`;
