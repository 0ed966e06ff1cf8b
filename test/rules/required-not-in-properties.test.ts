// required-not-in-properties: a warning on each required name with no entry in properties.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeConfig } from '../../runtime/src/rules';
import { config, expectNone, expectProblems, tool, unmark } from './helpers';

const CODE = 'required-not-in-properties';

describe('required-not-in-properties', () => {
  test('a required name without an entry in properties is a warning on the item, naming it and the tool', () => {
    const marked = config(tool({ parameters: '{"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q", ⟦"limit"⟧]}' }));
    expectProblems(marked, CODE, { only: true, messages: ["'limit'", "tool 'read_clipboard'", '"properties"'] });
  });

  test('without properties, or with empty properties, every required name is reported', () => {
    expectProblems(config(tool({ parameters: '{"type": "object", "required": [⟦"a"⟧, ⟦"b"⟧]}' })), CODE, { only: true });
    expectProblems(config(tool({ parameters: '{"type": "object", "properties": {}, "required": [⟦"a"⟧]}' })), CODE, { only: true });
  });

  test('a warning does not stop the server: the config is still extracted', () => {
    const { text } = unmark(config(tool({ parameters: '{"type": "object", "required": ["a"]}' })));
    const analysis = analyzeConfig(text);
    assert.deepEqual(
      analysis.problems.map((p) => p.code),
      [CODE],
    );
    // As the server uses it: the missing properties filled in.
    assert.deepEqual(analysis.config?.remoteTools[0].parameters, { type: 'object', properties: {}, required: ['a'] });
  });

  test('names that are in properties are fine, and so is an empty list', () => {
    expectNone(config(tool({ parameters: '{"type": "object", "properties": {"a": {}, "b": {"type": "number"}}, "required": ["a", "b"]}' })), CODE);
    expectNone(config(tool({ parameters: '{"type": "object", "properties": {}, "required": []}' })), CODE);
  });

  test('items that are not strings are required-not-string-list only', () => {
    expectNone(config(tool({ parameters: '{"type": "object", "properties": {}, "required": [1, null]}' })), CODE);
  });

  test('properties that is not an object, or parameters that is not an object, is not looked into', () => {
    expectNone(config(tool({ parameters: '{"type": "object", "properties": [], "required": ["a"]}' })), CODE);
    expectNone(config(tool({ parameters: '[{"required": ["a"]}]' })), CODE);
  });

  test('names are matched exactly, against keys as the strict parser keeps them', () => {
    expectProblems(config(tool({ parameters: '{"type": "object", "properties": {"Query": {}}, "required": [⟦"query"⟧]}' })), CODE);
    expectNone(config(tool({ parameters: '{"type": "object", "properties": {"\\u0071": {}}, "required": ["q"]}' })), CODE);
  });
});
