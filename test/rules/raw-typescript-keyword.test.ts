// raw-typescript-keyword: json-schema-to-typescript's tsType and tsEnumNames, which put text of the
// file into generated types as TypeScript, are a warning on the key, wherever they stand in parameters.
import { describe, test } from 'node:test';
import { RULES } from '../../runtime/src/rules';
import assert from 'node:assert/strict';
import { config, expectNone, expectProblems, tool } from './helpers';

const CODE = 'raw-typescript-keyword';
const withParameters = (parameters: string) => config(tool({ parameters }));

describe('raw-typescript-keyword', () => {
  test('tsType on a parameter is a warning on the key, naming the keyword, the tool and `10xgraph types`', () => {
    const injected = JSON.stringify('string }; console.log(require("fs")); export interface Z { z: string');
    expectProblems(withParameters(`{"type": "object", "properties": {"q": {"type": "string", ⟦"tsType"⟧: ${injected}}}}`), CODE, {
      only: true,
      messages: ['"tsType"', "tool 'read_clipboard'", '`10xgraph types` refuses it'],
    });
  });

  test('tsEnumNames is a warning too', () => {
    expectProblems(withParameters('{"type": "object", "properties": {"unit": {"type": "string", "enum": ["c", "f"], ⟦"tsEnumNames"⟧: ["Celsius", "Fahrenheit"]}}}'), CODE, {
      only: true,
      messages: ['"tsEnumNames"', 'enum'],
    });
  });

  test('it is found at any depth and in any place: the parameters themselves, items, anyOf, definitions, unknown keywords, arrays', () => {
    expectProblems(
      withParameters(
        '{"type": "object", ⟦"tsType"⟧: "{}", "properties": {"a": {"type": "array", "items": {⟦"tsType"⟧: "Date"}}, "b": {"anyOf": [{"type": "string"}, {⟦"tsType"⟧: ["x", "y"]}]}}, "definitions": {"d": {⟦"tsType"⟧: 1}}, "x-defs": [{"e": {⟦"tsEnumNames"⟧: null}}]}',
      ),
      CODE,
      { only: true },
    );
  });

  test('an escaped key is the same keyword', () => {
    expectProblems(withParameters('{"type": "object", "properties": {"q": {⟦"\\u0074sType"⟧: "Date"}}}'), CODE, { only: true });
  });

  test('every tool is checked, each problem naming its own tool', () => {
    const { problems } = expectProblems(
      config(tool({ parameters: '{"type": "object", ⟦"tsType"⟧: "A"}' }), tool({ name: '"other"', parameters: '{"type": "object", ⟦"tsType"⟧: "B"}' })),
      CODE,
    );
    assert.match(problems[0].message, /'read_clipboard'/);
    assert.match(problems[1].message, /'other'/);
  });

  test('a repeated key is judged by its last value', () => {
    expectNone(withParameters('{"type": "object", "properties": {"q": {"tsType": "Date", "tsType": {"type": "string"}}}}'), CODE);
    expectProblems(withParameters('{"type": "object", "properties": {"q": {"tsType": {"type": "string"}, ⟦"tsType"⟧: "Date"}}}'), CODE);
    expectNone(withParameters('{"type": "object", "properties": {"q": {"items": {"tsType": "Date"}, "items": {"type": "string"}}}}'), CODE);
  });

  test('a parameter or a definition named tsType (its value a schema) is no problem, nor is the word elsewhere', () => {
    expectNone(withParameters('{"type": "object", "properties": {"tsType": {"type": "string", "description": "The tsType of the row."}, "tsEnumNames": true}}'), CODE);
    expectNone(withParameters('{"type": "object", "definitions": {"tsType": {"type": "string"}}, "properties": {"q": {"type": "string", "enum": ["tsType"]}}}'), CODE);
  });

  test('no parameters, or parameters that are not an object, are not looked into', () => {
    expectNone(config(tool()), CODE);
    expectNone(config(tool({ parameters: '[{"tsType": "x"}]' })), CODE);
  });

  test('it is a warning, as the server accepts the keyword', () => {
    assert.equal(RULES[CODE].severity, 'warning');
  });
});
