// parameters-not-object: `parameters`, when present, is a JSON Schema object; one that is
// not is an error on the value, and is not looked into.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { config, expectNone, expectProblems, tool } from './helpers';

const CODE = 'parameters-not-object';

describe('parameters-not-object', () => {
  for (const [what, value] of [
    ['an array', '[{"type": "object"}]'],
    ['a string', '"object"'],
    ['a number', '0'],
    ['a boolean', 'true'],
    ['null', 'null'],
  ] as const) {
    test(`parameters that is ${what} is an error on the value, naming the tool`, () => {
      const { problems } = expectProblems(config(tool({ parameters: `⟦${value}⟧` })), CODE, { only: true, messages: ['"parameters"', "tool 'read_clipboard'", what] });
      assert.equal(problems[0].fixes, undefined);
    });
  }

  test('parameters that is not an object is not looked into', () => {
    expectProblems(config(tool({ parameters: '⟦[{"type": "int"}, {"required": [1]}]⟧' })), CODE, { only: true });
  });

  test('a tool without a name is named by its index', () => {
    expectProblems(config(tool({ name: undefined, parameters: '⟦[]⟧' })), CODE, { messages: ['remote_tools[0]'] });
  });

  test('absent parameters (the default) and object parameters are fine', () => {
    expectNone(config(tool()), CODE);
    expectNone(config(tool({ parameters: '{"type": "object", "properties": {}, "required": []}' })), CODE);
    expectNone(config(tool({ parameters: '{}' })), CODE);
  });

  test('a repeated parameters key is judged by its last value', () => {
    expectNone(config(tool({ parameters: '[], "parameters": {"type": "object"}' })), CODE);
    expectProblems(config(tool({ parameters: '{"type": "object"}, "parameters": ⟦[]⟧' })), CODE);
  });
});
