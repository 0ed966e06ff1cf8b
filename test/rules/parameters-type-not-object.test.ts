// parameters-type-not-object: a "type" given in the parameters schema is "object". A schema
// without "type" is accepted (the server fills in "object", and {} and [] for missing properties
// and required); a wrong type is an error on the value, and a fix sets it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeConfig } from '../../runtime/src/rules';
import { checkFix, config, expectClean, expectNone, expectProblems, tool } from './helpers';

const CODE = 'parameters-type-not-object';

describe('parameters-type-not-object', () => {
  test('parameters without "type" are accepted: the server fills in the type', () => {
    expectClean(config(tool({ parameters: '{"properties": {}}' })));
    expectClean(config(tool({ parameters: '{}' })));
    expectClean(
      `{\n  "agent": "graph:app",\n  "remote_tools": [\n    {\n      "node": "TOOL",\n      "name": "read_clipboard",\n      "description": "Read text from the user's clipboard.",\n      "parameters": {\n        "properties": {}\n      }\n    }\n  ]\n}\n`,
    );
  });

  test('the config the server uses has the type, properties and required filled in', () => {
    const parameters = (schema: string) => analyzeConfig(config(tool({ parameters: schema }))).config?.remoteTools[0].parameters;
    assert.deepEqual(parameters('{}'), { type: 'object', properties: {}, required: [] });
    assert.deepEqual(parameters('{"properties": {"q": {"type": "string"}}, "x-ui": 1}'), { type: 'object', properties: { q: { type: 'string' } }, required: [], 'x-ui': 1 });
    assert.deepEqual(parameters('{"type": "object", "required": []}'), { type: 'object', properties: {}, required: [] });
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
