/**
 * The whole text of an error body: its message and the messages of its issues, one per line.
 * 400/401/403/404 answers carry the contract's fixed message and the specific reason in their
 * issues, so tests that check the reason read it from here.
 */
export function errorText(body: { message?: unknown; issues?: { message?: unknown }[] } | undefined): string {
  const lines = [body?.message, ...(body?.issues ?? []).map((issue) => issue.message)];
  return lines.filter((line): line is string => typeof line === 'string').join('\n');
}
