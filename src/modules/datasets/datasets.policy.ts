import type { Caller } from '../../domain/caller.ts';
import { roleAtLeast } from '../../domain/roles.ts';

/** The parts of a dataset that decide who may change it. */
export interface DatasetOwnership {
  /** Null: the built-in factor library, which no one changes through the API. */
  organization_id: string | null;
  is_common: boolean;
}

/**
 * Who may do what with coefficient datasets. Reading (lists, export, history) is for those who
 * configure indicators: MANAGER and above. Writing is for OWNERs. A common dataset is shared
 * with every organization and changed only by a platform admin of the organization that owns it.
 */
export const datasetPolicy = {
  canRead: (caller: Caller) => roleAtLeast(caller.role, 'MANAGER'),

  canWrite: (caller: Caller) => caller.role === 'OWNER',

  /** Mark a dataset common (or no longer common): platform admins only. */
  canShare: (caller: Caller) => caller.isAdmin,

  canChange: (caller: Caller, dataset: DatasetOwnership) =>
    dataset.organization_id !== null &&
    caller.role === 'OWNER' &&
    (dataset.is_common
      ? caller.isAdmin && dataset.organization_id === caller.organizationId
      : dataset.organization_id === caller.organizationId),
};

export const READ_DENIED = 'Only managers and owners can read coefficient datasets';
export const WRITE_DENIED = 'Only organization owners can change coefficient datasets';
/** Why a change of this dataset is refused (to a caller that `canChange` refuses). */
export const changeDenied = (dataset: DatasetOwnership) =>
  dataset.organization_id === null ? LIBRARY_DENIED : COMMON_DENIED;

export const LIBRARY_DENIED =
  'The built-in factor library is read-only: copy the figures you need into a dataset of your own to change them';
export const COMMON_DENIED =
  'Common datasets can be changed only by a platform administrator of the organization that owns them';
