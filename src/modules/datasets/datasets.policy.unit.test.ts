import { describe, expect, it } from 'vitest';
import type { Role } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { COMMON_DENIED, changeDenied, datasetPolicy, LIBRARY_DENIED } from './datasets.policy.ts';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';

const caller = (role: Role, isAdmin = false): Caller => ({
  userId: '33333333-3333-4333-8333-333333333333',
  organizationId: ORG,
  role,
  isAdmin,
  email: 'x@example.com',
  name: 'x',
  image: null,
  credential: { kind: 'token', id: 'x' },
});

describe('datasetPolicy', () => {
  it('lets managers and owners read, owners write, admins share', () => {
    expect(
      (['OWNER', 'MANAGER', 'COLLECTOR', 'VIEWER'] as Role[]).map((r) => datasetPolicy.canRead(caller(r))),
    ).toEqual([true, true, false, false]);
    expect(datasetPolicy.canWrite(caller('OWNER'))).toBe(true);
    expect(datasetPolicy.canWrite(caller('MANAGER', true))).toBe(false);
    expect(datasetPolicy.canShare(caller('OWNER'))).toBe(false);
    expect(datasetPolicy.canShare(caller('OWNER', true))).toBe(true);
  });

  it('lets owners change their own private datasets only', () => {
    expect(datasetPolicy.canChange(caller('OWNER'), { organization_id: ORG, is_common: false })).toBe(true);
    expect(datasetPolicy.canChange(caller('MANAGER'), { organization_id: ORG, is_common: false })).toBe(
      false,
    );
    expect(datasetPolicy.canChange(caller('OWNER'), { organization_id: OTHER, is_common: false })).toBe(
      false,
    );
  });

  it('lets only admins of the owning organization change common datasets', () => {
    expect(datasetPolicy.canChange(caller('OWNER'), { organization_id: ORG, is_common: true })).toBe(false);
    expect(datasetPolicy.canChange(caller('OWNER', true), { organization_id: ORG, is_common: true })).toBe(
      true,
    );
    expect(datasetPolicy.canChange(caller('OWNER', true), { organization_id: OTHER, is_common: true })).toBe(
      false,
    );
    expect(datasetPolicy.canChange(caller('MANAGER', true), { organization_id: ORG, is_common: true })).toBe(
      false,
    );
  });

  it('lets no one change the built-in library (no organization), and says so', () => {
    const library = { organization_id: null, is_common: true };
    for (const who of [caller('OWNER'), caller('OWNER', true), caller('MANAGER', true)])
      expect(datasetPolicy.canChange(who, library)).toBe(false);
    expect(changeDenied(library)).toBe(LIBRARY_DENIED);
    expect(changeDenied({ organization_id: OTHER, is_common: true })).toBe(COMMON_DENIED);
  });
});
