import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { uiCodeProblem } from '../src/modules/activity-definitions/activity-definitions.ui-code.ts';
import { marked } from './helpers/readme.ts';

// The README's custom form example (issue 51) is the uiCode its worked example stores (which the
// README test runs against the service, where a syntax error would be a 400), and it parses as
// the app wraps it. The browser test of custom forms runs it in the sandboxed frame.
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const README_UI_CODE = /<!-- ui-code:start -->\s*```js\n([\s\S]*?)\n```\s*<!-- ui-code:end -->/.exec(
  readme,
)?.[1];

describe('the README’s uiCode example', () => {
  it('is in the README, parses, and is what the worked example stores', () => {
    expect(README_UI_CODE).toContain("h('input'");
    expect(uiCodeProblem(README_UI_CODE!)).toBeNull();
    expect(marked('scenario')).toContain(`\nUI=$(cat <<'JS'\n${README_UI_CODE}\nJS\n)\n`);
  });
});
