// parameters-type-not-object: the parameters schema has "type": "object". Absent: the problem
// covers the `{` and a safe fix adds it; wrong: it covers the value and a fix sets it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFix, config, expectClean, expectNone, expectProblems, tool } from './helpers';

const CODE = 'parameters-type-not-object';

describe('parameters-type-not-object', () => {
  test('parameters without "type": an error on its `{` with a safe fix that adds the type', () => {
    const { text, problems } = expectProblems(config(tool({ parameters: '⟦{⟧"properties": {}}' })), CODE, { only: true, messages: ['"type"', "tool 'read_clipboard'"] });
    const [fix] = problems[0].fixes!;
    assert.equal(fix.safe, true);
    assert.equal(fix.isPreferred, true);
    const fixed = checkFix(text, problems[0]);
    assert.equal(fixed, config(tool({ parameters: '{"properties": {}, "type": "object"}' })));
    expectClean(fixed);
  });

  test('empty parameters `{}`: the fix fills it in', () => {
    const { text, problems } = expectProblems(config(tool({ parameters: '⟦{⟧}' })), CODE, { only: true });
    assert.equal(checkFix(text, problems[0]), config(tool({ parameters: '{ "type": "object" }' })));
  });

  test('multi-line parameters without "type": the type is added on its own line', () => {
    const marked = `{\n  "agent": "graph:app",\n  "remote_tools": [\n    {\n      "node": "TOOL",\n      "name": "read_clipboard",\n      "description": "Read text from the user's clipboard.",\n      "parameters": ⟦{⟧\n        "properties": {}\n      }\n    }\n  ]\n}\n`;
    const { text, problems } = expectProblems(marked, CODE, { only: true });
    const fixed = checkFix(text, problems[0]);
    assert.ok(fixed.includes('"properties": {},\n        "type": "object"\n      }'), fixed);
  });

  for (const [what, value] of [
    ['another type', '"string"'],
    ['a capitalised Object', '"Object"'],
    ['a list of types', '["object"]'],
    ['null', 'null'],
    ['a number', '1'],
  ] as const) {
    test(`"type" that is ${what} is an error on the value, with a fix that sets "object"`, () => {
      const { text, problems } = expectProblems(config(tool({ parameters: `{"type": ⟦${value}⟧}` })), CODE, { only: true, messages: ['"object"', "tool 'read_clipboard'"] });
      const fixed = checkFix(text, problems[0]);
      assert.equal(fixed, config(tool({ parameters: '{"type": "object"}' })));
      expectClean(fixed);
    });
  }

  test('"type": "object", or no parameters at all, is fine', () => {
    expectNone(config(tool({ parameters: '{"type": "object"}' })), CODE);
    expectNone(config(tool()), CODE);
  });

  test('parameters that is not an object is parameters-not-object only', () => {
    expectNone(config(tool({ parameters: '[]' })), CODE);
    expectNone(config(tool({ parameters: 'null' })), CODE);
  });

  test('a repeated "type" is judged by its last value', () => {
    expectNone(config(tool({ parameters: '{"type": "string", "type": "object"}' })), CODE);
    expectProblems(config(tool({ parameters: '{"type": "object", "type": ⟦"string"⟧}' })), CODE);
  });
});
