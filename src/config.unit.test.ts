import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'sdcs-config-'));

describe('configuration', () => {
  it('has working defaults and keeps a generated secret in the data directory', () => {
    const dataDir = dir();
    const config = loadConfig({ SDCS_DATA_DIR: dataDir });
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      allowSignup: false,
      databaseUrl: undefined,
    });
    expect(config.publicUrl).toBe('http://127.0.0.1:3000');
    expect(config.secret).toBe(readFileSync(join(dataDir, 'secret'), 'utf8').trim());
    expect(loadConfig({ SDCS_DATA_DIR: dataDir }).secret).toBe(config.secret);
  });

  it('reads every documented variable', () => {
    const config = loadConfig({
      SDCS_DATA_DIR: dir(),
      PORT: '8080',
      HOST: '0.0.0.0',
      PUBLIC_URL: 'https://sdcs.example.com/',
      DATABASE_URL: 'postgres://u@db/sdcs',
      SDCS_ALLOW_SIGNUP: 'true',
      SDCS_ADMIN_EMAILS: 'A@x.org, b@y.org',
      SMTP_URL: 'smtp://mail:25',
      SDCS_CALC_TIME_MS: '120',
      SDCS_CALC_MEMORY_MB: '64',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      publicUrl: 'https://sdcs.example.com',
      databaseUrl: 'postgres://u@db/sdcs',
      allowSignup: true,
      smtpUrl: 'smtp://mail:25',
      calcTimeMs: 120,
      calcMemoryBytes: 64 * 1024 * 1024,
    });
    expect([...config.adminEmails]).toEqual(['a@x.org', 'b@y.org']);
  });

  it.each([
    [undefined, false],
    ['false', false],
    ['true', true],
    ['2', 2],
    ['loopback, 10.0.0.0/8', 'loopback,10.0.0.0/8'],
    ['::1', '::1'],
  ])('reads SDCS_TRUST_PROXY=%s as %o', (raw, expected) => {
    const env = raw === undefined ? {} : { SDCS_TRUST_PROXY: raw };
    expect(loadConfig({ SDCS_DATA_DIR: dir(), ...env }).trustProxy).toEqual(expected);
  });

  it.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ SDCS_ALLOW_SIGNUP: 'maybe' }, /SDCS_ALLOW_SIGNUP/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ SDCS_SECRET: 'short' }, /SDCS_SECRET/],
    [{ SDCS_CALC_TIME_MS: '0' }, /SDCS_CALC_TIME_MS/],
    [{ SDCS_TRUST_PROXY: 'the load balancer' }, /SDCS_TRUST_PROXY/],
  ])('refuses %o with one clear line', (env, pattern) => {
    expect(() => loadConfig({ SDCS_DATA_DIR: dir(), ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ SDCS_DATA_DIR: dir(), ...env })).toThrow(pattern);
  });
});
