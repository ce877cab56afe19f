// What the frame draws of a component's tree (issue 51): form controls and text, never anything
// that loads or leaves (no script, link, image, frame, form or address). The frame's CSP would
// stop a request anyway; this keeps an `<a href>` from navigating the frame itself.

export const SAFE_TAGS = new Set(
  (
    'div span p label input select option optgroup textarea button fieldset legend output ' +
    'h1 h2 h3 h4 h5 h6 ul ol li dl dt dd strong em b i small br hr ' +
    'table caption thead tbody tfoot tr th td section header footer abbr code'
  ).split(' '),
);

const SAFE_ATTRIBUTES = new Set(
  (
    'id class className for htmlFor type value checked selected disabled readonly readOnly required ' +
    'name placeholder min max step rows cols maxlength maxLength minlength minLength size multiple ' +
    'title role tabindex tabIndex inputmode inputMode autocomplete colspan rowspan scope hidden style lang dir'
  ).split(' '),
);
const SAFE_EVENTS = new Set(['onInput', 'onChange', 'onClick', 'onFocus', 'onBlur', 'onKeyDown', 'onKeyUp']);
const SAFE_INPUT_TYPES = new Set([
  'text',
  'number',
  'date',
  'checkbox',
  'radio',
  'email',
  'tel',
  'search',
  'month',
  'time',
  'range',
]);
const MAX_TEXT = 10_000;

function safeValue(value: unknown): string | number | boolean | undefined {
  if (typeof value === 'string') return value.slice(0, MAX_TEXT);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return undefined;
}

/** The props the frame gives Preact; `listen(handler)` makes the listener of an event prop. */
export function safeProps(
  tag: string,
  props: unknown,
  listen: (handler: number) => unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!props || typeof props !== 'object') return out;
  for (const [key, value] of Object.entries(props)) {
    if (SAFE_EVENTS.has(key)) {
      const handler = (value as { handler?: unknown } | null)?.handler;
      if (typeof handler === 'number' && Number.isInteger(handler)) out[key] = listen(handler);
    } else if (key === 'style' && value && typeof value === 'object') {
      out.style = Object.fromEntries(
        Object.entries(value)
          .map(([k, v]) => [k, safeValue(v)])
          .filter(([k, v]) => v !== undefined && !/url\(|image/i.test(`${k}:${v}`)),
      );
    } else if (SAFE_ATTRIBUTES.has(key) || /^(aria|data)-[\w-]+$/.test(key)) {
      const safe = safeValue(value);
      if (safe !== undefined && !(key === 'style' && /url\(|image/i.test(String(safe)))) out[key] = safe;
    }
  }
  if (tag === 'input' && out.type !== undefined && !SAFE_INPUT_TYPES.has(String(out.type))) out.type = 'text';
  if (tag === 'button') out.type = 'button';
  return out;
}
