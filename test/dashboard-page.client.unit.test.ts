import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The public dashboard page's script (src/modules/dashboard-page/client) says every text through
// its messages: each key it names is in the English catalog (the catalogs test checks the other
// languages have English's keys), and no text for people is written in the source.
const CLIENT = join(import.meta.dirname, '..', 'src', 'modules', 'dashboard-page', 'client');
const EN = JSON.parse(readFileSync(join(CLIENT, '..', 'assets', 'messages', 'en.json'), 'utf8')) as Record<
  string,
  string
>;
const files = readdirSync(CLIENT).filter((f) => f.endsWith('.ts'));
const SENTENCE = /^[A-Z][a-z]+[,:]?\s+[A-Za-z]/;

interface Found {
  keys: string[];
  texts: string[];
}

/** The message keys a file names (`say('key'`, and the notes' tables), and its texts for people. */
function scan(file: string, source = readFileSync(join(CLIENT, file), 'utf8')): Found {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Found = { keys: [], texts: [] };
  const literal = (node: ts.Node | undefined) =>
    node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : null;
  const where = (node: ts.Node) => `${file}:${tree.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText();
      const key = literal(node.arguments[0]);
      if (callee === 'say' && key) found.keys.push(key);
      // el(tag, className, text): the text is never a literal with letters.
      const text = literal(node.arguments[2]);
      if (callee === 'el' && text && /\p{L}/u.test(text)) found.texts.push(`${where(node)} "${text}"`);
    }
    if (ts.isPropertyAssignment(node) && /NOTES/.test(node.parent.parent.getText().split('=')[0] ?? '')) {
      const key = literal(node.initializer);
      if (key) found.keys.push(key);
    }
    if (ts.isBinaryExpression(node) && /\.textContent$/.test(node.left.getText())) {
      const text = literal(node.right);
      if (text && /\p{L}/u.test(text)) found.texts.push(`${where(node)} "${text}"`);
    }
    const text = literal(node);
    if (text && SENTENCE.test(text) && !ts.isImportDeclaration(node.parent)) {
      found.texts.push(`${where(node)} "${text}"`);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

describe('the dashboard page’s script', () => {
  const all = files.map((file) => scan(file));

  it('names only message keys the English catalog has', () => {
    const keys = new Set(all.flatMap((f) => f.keys));
    expect(keys.size).toBeGreaterThan(30);
    expect([...keys].filter((key) => !(key in EN))).toEqual([]);
    // The notes of known issue types (decision 230) are among them.
    for (const key of ['noteNoData', 'noteTargetBaseline', 'noteTargetNotAdditive', 'noteTargetNotShown'])
      expect(keys).toContain(key);
  });

  it('writes no text for people in its source', () => {
    expect(all.flatMap((f) => f.texts)).toEqual([]);
  });

  it('catches each shape of a text written in the source', () => {
    const sample = [
      "row.append(el('th', '', 'Site'));",
      "status.textContent = 'Loading';",
      "show('Nothing to show here');",
      "row.append(el('td', 'num', '—'), el('th', '', say('site')));",
    ].join('\n');
    const found = scan('sample.ts', sample);
    expect(found.texts).toEqual([
      'sample.ts:1 "Site"',
      'sample.ts:2 "Loading"',
      'sample.ts:3 "Nothing to show here"',
    ]);
    expect(found.keys).toEqual(['site']);
  });
});
