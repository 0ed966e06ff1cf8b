// untrimmed-field: node (or node_name), name or description has white space around it (Python's
// str.strip()), which the server trims. Information on the value, with a safe fix that trims it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFix, config, expectClean, expectNone, expectProblems, tool } from './helpers';

const CODE = 'untrimmed-field';

describe('untrimmed-field', () => {
  test('" get_location " is information on the value with a safe fix that trims it', () => {
    const { text, problems } = expectProblems(config(tool({ name: '⟦" get_location "⟧' })), CODE, {
      only: true,
      messages: ['"name"', "tool 'get_location'", 'trims it to "get_location"'],
    });
    const [fix] = problems[0].fixes!;
    assert.equal(fix.title, 'Trim to "get_location"');
    assert.equal(fix.safe, true);
    assert.equal(fix.isPreferred, true);
    const fixed = checkFix(text, problems[0]);
    assert.equal(fixed, config(tool({ name: '"get_location"' })));
    expectClean(fixed);
  });

  test('node and description are trimmed too; node_name is named as written', () => {
    expectProblems(config(tool({ node: '⟦" TOOL"⟧', description: '⟦"Read text from the user\'s clipboard.\\n"⟧' })), CODE, { only: true });
    expectProblems(config(tool({ node: undefined, node_name: '⟦" TOOL "⟧' })), CODE, { only: true, messages: ['"node_name"'] });
  });

  test("Python's white space: U+0085 and U+001C–U+001F are trimmed, U+FEFF is not", () => {
    const { text, problems } = expectProblems(config(tool({ name: '⟦"read_clipboard\\u0085\\u001f"⟧' })), CODE, { only: true });
    assert.equal(checkFix(text, problems[0]), config(tool()));
    expectNone(config(tool({ description: '"\\ufeffRead text from the clipboard."' })), CODE);
  });

  test('a blank value is blank-field only, and a value that is not a string is not-a-string only', () => {
    expectNone(config(tool({ name: '" "' })), CODE);
    expectNone(config(tool({ name: '5' })), CODE);
  });

  test('a trimmed name is what the other rules judge: " get_location " beside "get_location" is also a duplicate-name', () => {
    const marked = config(tool({ name: '"get_location"' }), tool({ name: '⟦" get_location "⟧' }));
    expectProblems(marked, CODE);
    expectProblems(marked, 'duplicate-name');
  });
});
