export const SAFE_TAGS: Set<string>;
export function safeProps(
  tag: string,
  props: unknown,
  listen: (handler: number) => unknown,
): Record<string, unknown>;
