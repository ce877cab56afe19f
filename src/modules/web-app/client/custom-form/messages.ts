// The app's reading of what a custom form's frame sends (issue 51). Nothing from the frame is
// ever run: a message is a plain object of known shape, or it is dropped. `set(name, value)` must
// name one of the definition's inputs and carry a value of its type; it becomes the text the
// generic form would hold, so that the locale's number reading and the form's checks apply as if
// the person had typed it there.
import { numberForInput } from '../numbers.js';

const MAX_TEXT = 1000;
const MAX_HEIGHT = 3000;

/** The input's text for a value the component set, or null when the value is refused. */
/** An input of an activity definition, as far as the frame's messages need it. */
export type FrameInput = {
  name: string;
  type: string;
  editor?: { type: string; options?: { label: string; value: string | number }[] } | null;
};

/** A message of the frame, read. */
export type FrameMessage =
  | { type: 'set'; name: string; text: string }
  | { type: 'height' | 'rendered'; height: number }
  | { type: 'failed'; reason: string };

export function textForInput(input: FrameInput, value: unknown, locale: string): string | null {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'string' && value.length > MAX_TEXT) return null;
  let text: string | null = null;
  switch (input.type) {
    case 'number':
      if (typeof value === 'number') text = Number.isFinite(value) ? numberForInput(value, locale) : null;
      else if (typeof value === 'string') text = value;
      break;
    case 'boolean':
      if (typeof value === 'boolean') text = String(value);
      else if (value === 'true' || value === 'false') text = value;
      break;
    default:
      if (typeof value === 'string') text = value;
  }
  if (text === null) return null;
  // A select input takes one of its options only, as in the generic form.
  const options = input.editor?.type === 'select' ? (input.editor.options ?? []) : null;
  if (options && !options.some((o) => String(o.value) === text)) return null;
  return text;
}

/**
 * One message of the frame read: `{type: 'set', name, text}`, `{type: 'height', height}`,
 * `{type: 'rendered', height}`, `{type: 'failed', reason}` or null (dropped).
 */
export function readFrameMessage(
  received: unknown,
  inputs: FrameInput[],
  locale: string,
): FrameMessage | null {
  if (!received || typeof received !== 'object' || Array.isArray(received)) return null;
  const data = received as Record<string, unknown>;
  switch (data.type) {
    case 'set': {
      const input = inputs.find((i) => i.name === data.name);
      if (!input || typeof data.name !== 'string') return null;
      const text = textForInput(input, data.value, locale);
      return text === null ? null : { type: 'set', name: input.name, text };
    }
    case 'height':
    case 'rendered': {
      const height =
        typeof data.height === 'number' && Number.isFinite(data.height)
          ? Math.min(MAX_HEIGHT, Math.max(0, data.height))
          : null;
      return height === null ? null : { type: data.type, height: Math.ceil(height) };
    }
    case 'failed':
      return {
        type: 'failed',
        reason: typeof data.reason === 'string' ? data.reason.slice(0, 40) : 'unknown',
      };
    default:
      return null;
  }
}
