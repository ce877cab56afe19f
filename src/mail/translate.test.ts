import { parse } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../lib/locales.ts';
import { MAIL_MESSAGES } from './messages.ts';
import { mailTexts } from './translate.ts';

/** The argument names of an ICU message. */
function argumentsOf(message: string): string[] {
  const found = new Set<string>();
  const walk = (elements: ReturnType<typeof parse>) => {
    for (const element of elements) {
      if ('value' in element && typeof element.value === 'string' && element.type !== 0)
        found.add(element.value);
      if ('options' in element) for (const option of Object.values(element.options)) walk(option.value);
    }
  };
  walk(parse(message));
  return [...found].sort();
}

describe('e-mail texts', () => {
  for (const tag of LOCALES) {
    it(`${tag}: every English key, valid ICU, the same arguments`, () => {
      const messages = MAIL_MESSAGES[tag];
      expect(Object.keys(messages).sort()).toEqual(Object.keys(MAIL_MESSAGES.en).sort());
      for (const [key, message] of Object.entries(messages)) {
        expect(argumentsOf(message), `${tag} ${key}`).toEqual(
          argumentsOf(MAIL_MESSAGES.en[key as keyof typeof MAIL_MESSAGES.en]),
        );
      }
    });
  }

  it('falls back to English for a language SDCS does not ship, and formats dates in the language', () => {
    expect(mailTexts('it-IT').locale).toBe('en');
    expect(mailTexts('de-AT').t('role', { role: 'COLLECTOR' })).toBe('Erfasser');
    expect(mailTexts('fr').day(new Date('2026-03-05T00:00:00Z'))).toBe('5 mars 2026');
    expect(mailTexts('en').moment(new Date('2026-03-05T14:30:00Z'))).toBe('March 5, 2026 at 2:30 PM UTC');
  });
});
