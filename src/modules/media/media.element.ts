import { type ElementTypeHandler, PLAIN_CHECKS } from '../values/index.ts';
import { checkFileValues } from './media.service.ts';

/**
 * FILE elements: a value is a media id (the plain check), and the session's `plan` accepts only
 * `uploaded` media of the organization that the caller may see (a pending upload is not enough;
 * another site's file is not there for them). Nothing else is written.
 */
export function fileElementHandler(): ElementTypeHandler {
  return {
    check: PLAIN_CHECKS.FILE,
    open: ({ caller }) => ({
      plan: (tx, values) =>
        checkFileValues(
          tx,
          caller,
          values.flatMap((p) => (p.checked ? [{ index: p.index, mediaId: String(p.checked.value) }] : [])),
        ),
      ready: async () => true,
      compute: async () => undefined,
      write: async () => undefined,
    }),
  };
}
