import type { Issue } from '../../domain/errors.ts';

/**
 * An issue of one value of a body, structured: the value's index in `values`, the field to blame
 * (null: the value as a whole) and the message without its path. `issueOf` makes the API's
 * `{path: "values.<index>.<field>", message: "<path> <message>"}` of it; source imports name
 * their row and column instead.
 */
export interface ValueIssue {
  index: number;
  field: string | null;
  message: string;
}

/** A value issue as a 400 names it (`values.<index>.<field> <message>`). */
export function issueOf({ index, field, message }: ValueIssue): Issue {
  const path = field ? `values.${index}.${field}` : `values.${index}`;
  return { path, message: `${path} ${message}` };
}
