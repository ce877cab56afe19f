/**
 * The languages SDCS ships (web app, public dashboard page, e-mails), as BCP 47 tags. English is
 * the default and the source language: every other language has every key English has (a test
 * checks it).
 */
export const LOCALES = ['en', 'de', 'fr', 'es', 'pl'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

const known = new Set<string>(LOCALES);

/** The shipped language a tag asks for (`de-AT` -> `de`), or null when none fits. */
export function supportedLocale(tag: string | null | undefined): Locale | null {
  if (!tag) return null;
  let canonical: string;
  try {
    [canonical] = Intl.getCanonicalLocales(tag) as [string];
  } catch {
    return null;
  }
  const language = canonical.split('-')[0]!.toLowerCase();
  return known.has(language) ? (language as Locale) : null;
}

/**
 * The first shipped language of an `Accept-Language` header (weights honoured), else English.
 * `de-CH,de;q=0.9,en;q=0.8` -> `de`.
 */
export function localeFromAcceptLanguage(header: string | undefined): Locale {
  const ranked = (header ?? '')
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag?.trim() ?? '', q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    const found = supportedLocale(tag);
    if (found) return found;
  }
  return DEFAULT_LOCALE;
}
