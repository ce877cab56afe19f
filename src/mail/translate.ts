import { IntlMessageFormat } from 'intl-messageformat';
import type { PeriodType } from '../db/schema/index.ts';
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
  /** A number as the recipient writes numbers ("1.234,5"). */
  number(value: number): string;
  /** A period in words: "März 2024", "Q2 2024", "2024". */
  period(year: number, periodType: PeriodType, periodUnit: number): string;
}

const cache = new Map<string, IntlMessageFormat>();

/** The e-mail texts in the recipient's language (`de`, `de-AT`, …); English when SDCS lacks it. */
export function mailTexts(locale: string | null | undefined): MailTexts {
  const language = supportedLocale(locale) ?? 'en';
  const texts: MailTexts = {
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
    number: (value) => new Intl.NumberFormat(language, { maximumFractionDigits: 6 }).format(value),
    period(year, periodType, periodUnit) {
      if (periodType === 'MONTHLY') {
        const at = Date.UTC(year, periodUnit - 1, 1);
        return new Intl.DateTimeFormat(language, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
          at,
        );
      }
      if (periodType === 'QUARTERLY')
        return texts.t('period.quarter', { quarter: periodUnit, year: String(year) });
      return String(year);
    },
  };
  return texts;
}
