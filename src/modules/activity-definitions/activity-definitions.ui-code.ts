import { type Node, parse } from 'acorn';
import { coded, type Issue } from '../../domain/errors.ts';

/**
 * The syntax check of a definition's `uiCode` at save (issue 51). The body is never run on the
 * service: acorn only parses it, wrapped exactly as the web app wraps it before running it in its
 * sandboxed frame. A body that closes the function early (`}); …; (function () {`) is refused too,
 * so that what is stored is one function body.
 */

/** The function header the web app puts around `uiCode` (client/custom-form/frame-worker.js). */
export const UI_CODE_HEADER = 'function component({ h, inputs, values, set, units, locale, t }) {';

/** Why `uiCode` does not parse as a function body, with the body's line and column; null when it does. */
export function uiCodeProblem(uiCode: string): string | null {
  return uiCodeIssue(uiCode)?.message ?? null;
}

/** `uiCodeProblem` as the issue of `uiCode`, with its code and values (decision 225). */
export function uiCodeIssue(uiCode: string): Issue | null {
  if (uiCode.trim() === '') return null;
  const wrapped = `(${UI_CODE_HEADER}\n${uiCode}\n})`;
  let program: Node & { body?: Node[] };
  try {
    program = parse(wrapped, { ecmaVersion: 2022, sourceType: 'script', locations: true });
  } catch (error) {
    const { loc } = error as { loc?: { line: number; column: number } };
    const reason = String((error as Error).message).replace(/\s*\(\d+:\d+\)$/, '');
    if (!loc) return { path: 'uiCode', message: `uiCode: ${reason}` };
    // The header is line 1 of the wrapped text: the body's line 1 is its line 2.
    const line = Math.max(1, loc.line - 1);
    const column = loc.column + 1;
    return coded(
      'uiCode.syntax',
      `uiCode: ${reason} at line ${line}, column ${column}`,
      { detail: reason, line, column },
      'uiCode',
    );
  }
  if (program.body?.length !== 1)
    return { path: 'uiCode', message: 'uiCode: the body closes the function before its end' };
  return null;
}
