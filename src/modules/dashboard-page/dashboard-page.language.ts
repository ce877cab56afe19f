import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { LOCALES, type Locale, localeFromAcceptLanguage, supportedLocale } from '../../lib/locales.ts';

/**
 * The public dashboard page's language: `?lang=` when it names a shipped language, else the
 * viewer's browser (`Accept-Language`), else English. Its texts are ICU messages, one JSON file per
 * language in ./assets/messages (a test checks every language has English's keys and arguments):
 * the server writes the shell's texts with them, and the page's script gets the same messages in
 * a data- attribute and formats its own with intl-messageformat (bundled into its script).
 */
export type PageMessages = Record<string, string>;

export function loadPageMessages(assetsDir: string): Record<Locale, PageMessages> {
  return Object.fromEntries(
    LOCALES.map((tag) => [tag, JSON.parse(readFileSync(join(assetsDir, 'messages', `${tag}.json`), 'utf8'))]),
  ) as Record<Locale, PageMessages>;
}

/** The page's language for a request. */
export function pageLocale(lang: unknown, acceptLanguage: string | undefined): Locale {
  return (
    (typeof lang === 'string' ? supportedLocale(lang) : null) ?? localeFromAcceptLanguage(acceptLanguage)
  );
}

/** `t(key, values)` over one language's messages (English for a key it lacks). */
export function pageTexts(all: Record<Locale, PageMessages>, locale: Locale) {
  const cache = new Map<string, IntlMessageFormat>();
  return (key: string, values?: Record<string, string | number>): string => {
    let format = cache.get(key);
    if (!format) {
      const own = all[locale][key];
      format = new IntlMessageFormat(own ?? all.en[key] ?? key, own ? locale : 'en');
      cache.set(key, format);
    }
    return String(format.format(values));
  };
}
