import { type ElementTypeHandler, PLAIN_CHECKS } from '../submissions/index.ts';
import { checkFileValues } from './media.service.ts';

/**
 * FILE elements: a value is a media id (the plain check), and the session's `plan` accepts only
 * `uploaded` media of the organization (a pending upload is not enough). Nothing else is written.
 */
export function fileElementHandler(): ElementTypeHandler {
  return {
    check: PLAIN_CHECKS.FILE,
    open: ({ organizationId }) => ({
      plan: (tx, values) =>
        checkFileValues(
          tx,
          organizationId,
          values.flatMap((p) => (p.checked ? [{ index: p.index, mediaId: String(p.checked.value) }] : [])),
        ),
      ready: async () => true,
      compute: async () => undefined,
      write: async () => undefined,
    }),
  };
}
