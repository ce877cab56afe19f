// The app's texts: ICU messages (placeholders, plurals, selects) formatted by intl-messageformat in
// the person's language. English is bundled; the other languages are separate content-hashed
// chunks fetched when chosen (import() of their JSON, split out by the build).
import { type FormatXMLElementFn, IntlMessageFormat, type PrimitiveType } from 'intl-messageformat';
import en from './en.json';
import { setFormattingLocale } from './locale.js';

/** The languages offered, each named in itself (a person who cannot read the current one still finds theirs). */
export const LANGUAGES = [
  { tag: 'en', name: 'English' },
  { tag: 'de', name: 'Deutsch' },
  { tag: 'fr', name: 'Français' },
  { tag: 'es', name: 'Español' },
  { tag: 'pl', name: 'Polski' },
];

type Messages = Record<string, string>;

const loaders: Record<string, () => Promise<{ default: Messages }>> = {
  de: () => import('./de.json'),
  fr: () => import('./fr.json'),
  es: () => import('./es.json'),
  pl: () => import('./pl.json'),
};

let language = 'en';
let messages: Messages = en;
let formats = new Map<string, IntlMessageFormat>();

/** The language the app shows itself in (en, de, fr, es, pl). */
export const currentLanguage = () => language;

/** The shipped language a BCP 47 tag asks for (`de-AT` -> `de`), or null. */
export function supportedLanguage(tag: string | null | undefined): string | null {
  const base = (String(tag ?? '').split('-')[0] ?? '').toLowerCase();
  return LANGUAGES.some((l) => l.tag === base) ? base : null;
}

/** The first shipped language among the browser's, else English. */
export function browserLanguage() {
  const tags: readonly (string | undefined)[] = globalThis.navigator?.languages ?? [
    globalThis.navigator?.language,
  ];
  for (const tag of tags) {
    const found = supportedLanguage(tag);
    if (found) return found;
  }
  return 'en';
}

/** Calls of `useLanguage` so far: only the latest one applies its language. */
let requested = 0;

/** Loads `tag`'s messages (once) and makes it the app's language; answers the language used. */
export async function useLanguage(tag: string | null | undefined): Promise<string> {
  const chosen = supportedLanguage(tag) ?? 'en';
  const mine = ++requested;
  const load = loaders[chosen];
  const loaded: Messages = load ? (await load()).default : en;
  // A later call (a choice made while this language loaded) wins, whichever loads first.
  if (mine !== requested) return language;
  language = chosen;
  messages = loaded;
  formats = new Map();
  setFormattingLocale(chosen);
  if (globalThis.document) document.documentElement.lang = chosen;
  return chosen;
}

/**
 * The text of message `key` with its `values` (ICU: `{name}`, `{count, plural, one {…} other {…}}`).
 * A key the language lacks falls back to English (the completeness test keeps that from happening).
 */
export function t(key: string, values?: Record<string, PrimitiveType>): string;
/** With rich text (`<b>…</b>` made by a function of its chunks): the parts, strings and `R`s. */
export function t<R>(
  key: string,
  values: Record<string, PrimitiveType | FormatXMLElementFn<R>>,
): string | R | (string | R)[];
export function t<R>(key: string, values?: Record<string, PrimitiveType | FormatXMLElementFn<R>>) {
  let format = formats.get(key);
  if (!format) {
    const source = messages[key] ?? (en as Messages)[key];
    if (source === undefined) return key;
    format = new IntlMessageFormat(source, messages[key] === undefined ? 'en' : language);
    formats.set(key, format);
  }
  return format.format<R>(values);
}

/**
 * What an organization wrote, in the person's language when it gave one: `textOf(element, 'label')`
 * answers `element.labels[language]` when present, else `element.label` as written.
 */
export function textOf(thing: object | null | undefined, field: string): string | undefined {
  const own = thing as Record<string, unknown> | null | undefined;
  const translated = own?.[`${field}s`] as Record<string, string | undefined> | null | undefined;
  return translated?.[language] || (own?.[field] as string | undefined);
}
