import { describe, expect, it } from 'vitest';
import type { Role } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import type { SiteScope } from '../access/index.ts';
import { mediaPolicy } from './media.policy.ts';

const caller = (role: Role, userId = 'me'): Caller => ({
  userId,
  organizationId: 'o',
  role,
  isAdmin: false,
  email: 'e@x.org',
  name: 'n',
  image: null,
  credential: { kind: 'token', id: 't' },
});
const plant1: SiteScope = { all: false, siteIds: new Set(['p1']) };
const everything: SiteScope = { all: true, siteIds: new Set() };

describe('who sees a file', () => {
  it('attached: readers of one of its sites', () => {
    const onPlant2 = { uploadedBy: 'me', siteIds: ['p2'] };
    expect(mediaPolicy.canSee(caller('MANAGER'), plant1, false, onPlant2)).toBe(false);
    expect(
      mediaPolicy.canSee(caller('VIEWER'), plant1, false, { uploadedBy: 'x', siteIds: ['p2', 'p1'] }),
    ).toBe(true);
    expect(mediaPolicy.canSee(caller('OWNER'), everything, true, onPlant2)).toBe(true);
  });

  it('attached nowhere: its uploader, owners, and managers of the whole organization', () => {
    const others = { uploadedBy: 'someone', siteIds: [] };
    expect(mediaPolicy.canSee(caller('VIEWER'), plant1, false, { uploadedBy: 'me', siteIds: [] })).toBe(true);
    expect(mediaPolicy.canSee(caller('COLLECTOR'), plant1, true, others)).toBe(false);
    expect(mediaPolicy.canSee(caller('MANAGER'), plant1, false, others)).toBe(false);
    expect(mediaPolicy.canSee(caller('MANAGER'), plant1, true, others)).toBe(true);
    expect(mediaPolicy.canSee(caller('OWNER'), everything, false, others)).toBe(true);
    expect(mediaPolicy.canSee(caller('COLLECTOR'), plant1, false, { uploadedBy: null, siteIds: [] })).toBe(
      false,
    );
  });

  it('asks whether a manager covers the organization only when that decides', () => {
    expect(mediaPolicy.needsWholeOrganization(caller('MANAGER'), { uploadedBy: 'x', siteIds: [] })).toBe(
      true,
    );
    expect(mediaPolicy.needsWholeOrganization(caller('MANAGER'), { uploadedBy: 'me', siteIds: [] })).toBe(
      false,
    );
    expect(mediaPolicy.needsWholeOrganization(caller('COLLECTOR'), { uploadedBy: 'x', siteIds: [] })).toBe(
      false,
    );
    expect(mediaPolicy.needsWholeOrganization(caller('MANAGER'), { uploadedBy: 'x', siteIds: ['p1'] })).toBe(
      false,
    );
  });
});
