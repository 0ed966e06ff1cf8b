// properties-not-object: parameters.properties, when present, is an object; one that is not
// is an error on the value and is not looked into.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { config, expectNone, expectProblems, tool } from './helpers';

const CODE = 'properties-not-object';

describe('properties-not-object', () => {
  for (const [what, value] of [
    ['an array', '[{"q": {"type": "string"}}]'],
    ['a string', '"q"'],
    ['a number', '3'],
    ['null', 'null'],
  ] as const) {
    test(`properties that is ${what} is an error on the value, naming the tool`, () => {
      const { problems } = expectProblems(config(tool({ parameters: `{"type": "object", "properties": ⟦${value}⟧}` })), CODE, {
        only: true,
        messages: ['"parameters.properties"', "tool 'read_clipboard'", what],
      });
      assert.equal(problems[0].fixes, undefined);
    });
  }

  test('properties that is not an object is not looked into, and required is not checked against it', () => {
    expectProblems(config(tool({ parameters: '{"type": "object", "properties": ⟦[{"type": "int"}]⟧, "required": ["q"]}' })), CODE, { only: true });
  });

  test('an object, an empty object or no properties at all is fine', () => {
    expectNone(config(tool({ parameters: '{"type": "object", "properties": {"q": {"type": "string"}}}' })), CODE);
    expectNone(config(tool({ parameters: '{"type": "object", "properties": {}}' })), CODE);
    expectNone(config(tool({ parameters: '{"type": "object"}' })), CODE);
  });

  test('parameters that is not an object is not looked into', () => {
    expectNone(config(tool({ parameters: '[{"properties": 1}]' })), CODE);
  });

  test('a "properties" inside a property schema is invalid-property-schema, not this rule', () => {
    expectNone(config(tool({ parameters: '{"type": "object", "properties": {"q": {"type": "object", "properties": 1}}}' })), CODE);
  });

  test('a repeated "properties" is judged by its last value', () => {
    expectNone(config(tool({ parameters: '{"type": "object", "properties": 1, "properties": {}}' })), CODE);
    expectProblems(config(tool({ parameters: '{"type": "object", "properties": {}, "properties": ⟦1⟧}' })), CODE);
  });
});
