import { describe, expect, it } from 'vitest';
import { openSecret, sealSecret } from './secrets.ts';

// Sealed secrets (an identity provider's client secret, decision 220): read back only with the
// same SDCS_SECRET and purpose, and not at all once changed.
const SECRET = 'a-service-secret-of-at-least-32-characters';

describe('sealed secrets', () => {
  it('open to what was sealed, and seal differently each time', () => {
    const a = sealSecret(SECRET, 'oidc client secret', 'the client secret');
    const b = sealSecret(SECRET, 'oidc client secret', 'the client secret');
    expect(a).not.toBe(b);
    expect(a).not.toContain('the client secret');
    expect(openSecret(SECRET, 'oidc client secret', a)).toBe('the client secret');
    expect(openSecret(SECRET, 'oidc client secret', b)).toBe('the client secret');
  });

  it('do not open under another secret or purpose, or once changed', () => {
    const sealed = sealSecret(SECRET, 'oidc client secret', 'the client secret');
    expect(() => openSecret(`${SECRET}x`, 'oidc client secret', sealed)).toThrow();
    expect(() => openSecret(SECRET, 'another purpose', sealed)).toThrow();
    const [v, iv, tag, body] = sealed.split('.');
    const flipped = `${body![0] === 'A' ? 'B' : 'A'}${body!.slice(1)}`;
    expect(() => openSecret(SECRET, 'oidc client secret', [v, iv, tag, flipped].join('.'))).toThrow();
    expect(() => openSecret(SECRET, 'oidc client secret', 'not sealed')).toThrow();
  });
});
