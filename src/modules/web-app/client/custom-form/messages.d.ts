type Input = {
  name: string;
  type: string;
  editor?: { type: string; options: { label: string; value: string }[] };
};
export function textForInput(input: Input, value: unknown, locale: string): string | null;
export function readFrameMessage(
  data: unknown,
  inputs: Input[],
  locale: string,
): { type: string; name?: string; text?: string; height?: number; reason?: string } | null;
