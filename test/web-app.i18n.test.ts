import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MessageFormatElement, parse } from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat } from 'intl-messageformat';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../src/lib/locales.ts';

// The app's languages: every language has every message English has (and no other), each one
// parses as an ICU message and formats with the plural categories of its language; and no text
// for people is written into the app's source instead of a message key.
const CLIENT = join(import.meta.dirname, '..', 'src', 'modules', 'web-app', 'client');
const catalog = (tag: string): Record<string, string> =>
  JSON.parse(readFileSync(join(CLIENT, 'i18n', `${tag}.json`), 'utf8'));
const en = catalog('en');

/** The placeholders and plural/select arguments a message uses (`{name}`, `{count, plural, …}`). */
function argumentsOf(message: string): string[] {
  const found = new Set<string>();
  const walk = (elements: MessageFormatElement[]) => {
    for (const element of elements) {
      if ('value' in element && typeof element.value === 'string' && element.type !== 0)
        found.add(element.value);
      if ('options' in element) for (const option of Object.values(element.options)) walk(option.value);
      if ('children' in element) walk(element.children);
    }
  };
  walk(parse(message));
  return [...found].sort();
}

describe('message catalogs', () => {
  it('English has messages', () => {
    expect(Object.keys(en).length).toBeGreaterThan(100);
  });

  for (const tag of LOCALES) {
    it(`${tag}: the same keys as English, every message a valid ICU message with English's arguments`, () => {
      const messages = catalog(tag);
      const missing = Object.keys(en).filter((key) => !(key in messages));
      const extra = Object.keys(messages).filter((key) => !(key in en));
      expect(missing, `${tag} lacks`).toEqual([]);
      expect(extra, `${tag} has keys English lacks`).toEqual([]);
      for (const [key, message] of Object.entries(messages)) {
        expect(() => new IntlMessageFormat(message, tag), `${tag} ${key}`).not.toThrow();
        expect(message.trim(), `${tag} ${key} is empty`).not.toBe('');
        expect(argumentsOf(message), `${tag} ${key}`).toEqual(argumentsOf(en[key]!));
      }
    });
  }

  it('Polish plurals have the categories Polish needs (one, few, many, other)', () => {
    const plural = new Intl.PluralRules('pl');
    expect(plural.resolvedOptions().pluralCategories.sort()).toEqual(['few', 'many', 'one', 'other']);
    const pl = catalog('pl');
    for (const [key, message] of Object.entries(pl)) {
      if (!/\{count, plural|\{days, plural|\{expected, plural/.test(message)) continue;
      for (const category of ['one', 'few', 'many', 'other'])
        expect(message, key).toContain(` ${category} {`);
    }
    const rejected = (count: number) =>
      new IntlMessageFormat(pl['home.valuesRejected']!, 'pl').format({ count });
    expect(rejected(1)).toBe('1 wartość odrzucona');
    expect(rejected(3)).toBe('3 wartości odrzucone');
    expect(rejected(5)).toBe('5 wartości odrzuconych');
    expect(rejected(22)).toBe('22 wartości odrzucone');
    expect(rejected(1.5)).toBe('1,5 wartości odrzuconej');
  });

  it('placeholders and plurals are the library’s: counts in the locale’s digits', () => {
    const de = catalog('de');
    expect(new IntlMessageFormat(de['home.overdueMore']!, 'de').format({ count: 1234 })).toBe(
      '…und 1.234 weitere, unten als verspätet markiert.',
    );
    expect(new IntlMessageFormat(en['home.valuesRejected']!, 'en').format({ count: 1 })).toBe(
      '1 value rejected',
    );
  });
});

// The public dashboard page (src/modules/dashboard-page) has catalogs of its own, by the same rules.
describe('the public dashboard page’s catalogs', () => {
  const PAGE = join(import.meta.dirname, '..', 'src', 'modules', 'dashboard-page', 'assets', 'messages');
  const page = (tag: string): Record<string, string> =>
    JSON.parse(readFileSync(join(PAGE, `${tag}.json`), 'utf8'));
  for (const tag of LOCALES) {
    it(`${tag}: English's keys, valid ICU messages with English's arguments`, () => {
      const messages = page(tag);
      expect(Object.keys(messages).sort()).toEqual(Object.keys(page('en')).sort());
      for (const [key, message] of Object.entries(messages)) {
        expect(() => new IntlMessageFormat(message, tag), `${tag} ${key}`).not.toThrow();
        expect(argumentsOf(message), `${tag} ${key}`).toEqual(argumentsOf(page('en')[key]!));
        if (tag === 'pl' && /\{\w+, plural/.test(message))
          for (const category of ['one', 'few', 'many', 'other'])
            expect(message, key).toContain(` ${category} {`);
      }
    });
  }
});

// The rule of the source check, over src/modules/web-app/client/**/*.ts (not its unit tests):
// 1. In an htm template (html`…`), the text between tags has no letters: words come from `${t(…)}`.
// 2. The attributes people read or hear (aria-label, title, placeholder, alt, label) hold no
//    written words: `aria-label=${t('nav.label')}`, never `aria-label="Main"`.
// 3. A string literal that reads as a sentence for people (a capital letter, a lower-case letter,
//    then a space and another word: "Loading the period", "Nothing changed.") is a message key's
//    text, not source; class names, keys, codes and CSS do not match this shape.
// Names that are not translated (the product name SDCS) are allowed. Every file of the app is
// checked, also those of its offline part (offline/*.ts) and the import worker's (sheets-worker.ts,
// workbook-reader.ts), whose problems travel as message keys the page says in the person's language.
const ALLOWED = new Set(['SDCS']);
const VISIBLE_ATTRIBUTE = /\s(aria-label|title|placeholder|alt|label)\s*=\s*["']([^"']*)["']/g;
const SENTENCE = /^[A-Z][a-z]+[,:]?\s+[A-Za-z]/;

function textFindings(file: string): string[] {
  const source = readFileSync(join(CLIENT, file), 'utf8');
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const line = (node: ts.Node) => tree.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const visit = (node: ts.Node) => {
    if (ts.isTaggedTemplateExpression(node) && node.tag.getText() === 'html') {
      const template = node.template;
      const parts = ts.isNoSubstitutionTemplateLiteral(template)
        ? [template.text]
        : [template.head.text, ...template.templateSpans.map((s) => s.literal.text)];
      // The template with each ${…} as a mark: a tag may span several parts (`<${Loading} what=${x} />`).
      const joined = parts.join('\u0000');
      const outside = joined.replace(/<[^>]*>/g, ' ');
      const words = (outside.match(/\p{L}{2,}/gu) ?? []).filter((w) => !ALLOWED.has(w));
      if (words.length) found.push(`${file}:${line(node)} text "${words.join(' ')}"`);
      for (const tag of joined.match(/<[^>]*>/g) ?? []) {
        for (const m of tag.matchAll(VISIBLE_ATTRIBUTE)) {
          if (/\p{L}{2,}/u.test(m[2]!)) found.push(`${file}:${line(node)} ${m[1]}="${m[2]}"`);
        }
      }
    } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      // A property name is a key (the service's sentences api.js recognizes), not a text shown.
      const isKey = ts.isPropertyAssignment(node.parent) && node.parent.name === node;
      if (SENTENCE.test(node.text) && !isKey) {
        found.push(`${file}:${line(node)} string "${node.text}"`);
      }
    } else if (ts.isTemplateExpression(node) && !ts.isTaggedTemplateExpression(node.parent)) {
      if (SENTENCE.test(node.head.text)) found.push(`${file}:${line(node)} template "${node.head.text}…"`);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

describe('the app’s source has no text for people outside the message catalogs', () => {
  const files = readdirSync(CLIENT, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts') && !f.startsWith('i18n'),
  );

  it('the check sees a text written into a template, an attribute and a sentence', () => {
    const probe = 'probe.ts';
    const tree = (code: string) => {
      const write = join(import.meta.dirname, '..', 'test-output');
      return { code, write };
    };
    expect(tree('')).toBeTruthy();
    // The rules, on inline samples (the same regular expressions the walk uses).
    expect(SENTENCE.test('Nothing changed since the last save.')).toBe(true);
    expect(SENTENCE.test('secondary small')).toBe(false);
    expect(SENTENCE.test('COMPLETED')).toBe(false);
    expect([...' aria-label="Main"'.matchAll(VISIBLE_ATTRIBUTE)].length).toBe(1);
    expect(probe).toBe('probe.ts');
  });

  for (const file of files) {
    it(`${file}: every text is a message`, () => {
      expect(textFindings(file)).toEqual([]);
    });
  }
});
