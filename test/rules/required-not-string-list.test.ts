// required-not-string-list: parameters.required, when present, is a list of strings; the
// problem covers the value, or each item that is not a string.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { config, expectNone, expectProblems, tool } from './helpers';

const CODE = 'required-not-string-list';
const params = (required: string) => tool({ parameters: `{"type": "object", "properties": {"q": {"type": "string"}}, "required": ${required}}` });

describe('required-not-string-list', () => {
  for (const [what, value] of [
    ['a string', '"q"'],
    ['an object', '{"q": true}'],
    ['null', 'null'],
    ['a boolean', 'true'],
  ] as const) {
    test(`required that is ${what} is an error on the value, naming the tool`, () => {
      const { problems } = expectProblems(config(params(`⟦${value}⟧`)), CODE, { only: true, messages: ['"parameters.required"', "tool 'read_clipboard'"] });
      assert.equal(problems[0].fixes, undefined);
    });
  }

  test('each item that is not a string is an error of its own', () => {
    const { problems } = expectProblems(config(params('["q", ⟦1⟧, ⟦null⟧, ⟦["q"]⟧, ⟦{}⟧]')), CODE, { only: true });
    assert.match(problems[0].message, /a number/);
    assert.match(problems[1].message, /null/);
    assert.match(problems[2].message, /an array/);
    assert.match(problems[3].message, /an object/);
  });

  test('a list of strings, or an empty list, or none at all, is fine', () => {
    expectNone(config(params('["q"]')), CODE);
    expectNone(config(params('[]')), CODE);
    expectNone(config(tool({ parameters: '{"type": "object"}' })), CODE);
  });

  test('parameters that is not an object is not looked into', () => {
    expectNone(config(tool({ parameters: '[{"required": 1}]' })), CODE);
  });

  test('a repeated "required" is judged by its last value', () => {
    expectNone(config(params('1, "required": ["q"]')), CODE);
    expectProblems(config(params('["q"], "required": ⟦1⟧')), CODE);
  });
});
