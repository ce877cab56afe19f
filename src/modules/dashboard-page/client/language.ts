import { IntlMessageFormat } from 'intl-messageformat';
import { body } from './page.ts';

// The page's language and texts: ICU messages in the page's language (data-locale and
// data-messages, chosen by the server from ?lang= or the browser's languages), formatted by
// intl-messageformat (bundled with the page's script: plurals by the language's rules); numbers
// and dates by Intl in that language.

export type Values = Record<string, string | number>;

export const LOCALE = body.dataset['locale'] || 'en';

function readMessages(): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(body.dataset['messages'] || '{}');
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
  } catch {
    return {}; // no messages: the keys are shown
  }
}

const MESSAGES = readMessages();
const formats = new Map<string, IntlMessageFormat>();

/** The text of message `key` with `values`, in the page's language. */
export function say(key: string, values?: Values): string {
  let format = formats.get(key);
  if (!format) {
    format = new IntlMessageFormat(MESSAGES[key] ?? key, LOCALE);
    formats.set(key, format);
  }
  return String(format.format(values));
}

/** Whether the page has message `key` (the service's English sentence is shown otherwise). */
export const hasMessage = (key: string): boolean => key in MESSAGES;

/** A number in the page's language: `decimals` places when set (0..10), else up to 2. */
export function numberText(value: number, decimals?: number): string {
  const places = typeof decimals === 'number' && decimals >= 0 && decimals <= 10 ? decimals : undefined;
  return new Intl.NumberFormat(LOCALE, {
    minimumFractionDigits: places ?? 0,
    maximumFractionDigits: places ?? 2,
  }).format(value);
}
