import { IntlMessageFormat } from 'intl-messageformat';
import { type Locale, supportedLocale } from '../lib/locales.ts';
import { MAIL_MESSAGES, type MailKey } from './messages.ts';

/** Texts of the e-mails in one language: ICU messages (placeholders, plurals) and dates by Intl. */
export interface MailTexts {
  locale: Locale;
  t(key: MailKey, values?: Record<string, string | number>): string;
  /** A moment in words, in UTC ("28. November 2026 um 12:00 UTC"). */
  moment(at: Date): string;
  /** A day in words ("28.11.2026"). */
  day(at: Date): string;
}

const cache = new Map<string, IntlMessageFormat>();

/** The e-mail texts in the recipient's language (`de`, `de-AT`, …); English when SDCS lacks it. */
export function mailTexts(locale: string | null | undefined): MailTexts {
  const language = supportedLocale(locale) ?? 'en';
  return {
    locale: language,
    t(key, values) {
      const id = `${language}:${key}`;
      let format = cache.get(id);
      if (!format) {
        format = new IntlMessageFormat(MAIL_MESSAGES[language][key], language);
        cache.set(id, format);
      }
      return String(format.format(values));
    },
    moment: (at) =>
      `${new Intl.DateTimeFormat(language, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(at)} UTC`,
    day: (at) => new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' }).format(at),
  };
}
