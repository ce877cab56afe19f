import type { Issue } from '../../domain/errors.ts';
import type { IssueCode, IssueParams } from '../../domain/issue-codes.ts';

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
  /**
   * The message is a whole sentence for people (it names the element by its label, as the rules'
   * messages do): it is shown as it is, without the path in front.
   */
  whole?: boolean;
  /** The documented code of the problem and its values (decision 225). */
  code?: IssueCode;
  params?: IssueParams;
}

/** A value issue as a 400 names it (`values.<index>.<field> <message>`, or the whole sentence). */
export function issueOf({ index, field, message, whole, code, params }: ValueIssue): Issue {
  const path = field ? `values.${index}.${field}` : `values.${index}`;
  return {
    path,
    message: whole ? message : `${path} ${message}`,
    ...(code ? { code } : {}),
    ...(code && params ? { params } : {}),
  };
}
