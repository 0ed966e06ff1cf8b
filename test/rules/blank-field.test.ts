// blank-field: node, name and description are not empty or only white space as Python's
// str.strip() sees it; such a field is judged by no other rule (a blank name is not also
// invalid-tool-name, and so on).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { config, expectNone, expectProblems, graph, node, tool } from './helpers';

const CODE = 'blank-field';

describe('blank-field', () => {
  for (const field of ['node', 'name', 'description'] as const) {
    test(`an empty "${field}" is an error on the value that says it is empty`, () => {
      const label = field === 'name' ? 'remote_tools[0]' : "tool 'read_clipboard'";
      const { problems } = expectProblems(config(tool({ [field]: '⟦""⟧' })), CODE, { only: true, messages: [`"${field}"`, label, 'empty'] });
      assert.equal(problems[0].fixes, undefined);
    });

    test(`a "${field}" of only white space (spaces, tab, escaped line break) is an error on the value`, () => {
      expectProblems(config(tool({ [field]: '⟦" \\t\\n "⟧' })), CODE, { only: true, messages: [`"${field}"`, 'white space'] });
    });
  }

  test("white space is Python's: U+001C–U+001F, U+0085, U+00A0 and U+3000 are white space", () => {
    expectProblems(config(tool({ name: '⟦"\\u001c\\u001d\\u001e\\u001f"⟧' })), CODE, { only: true, messages: ['white space'] });
    expectProblems(config(tool({ node: '⟦"\\u0085\\u00a0\\u3000"⟧' })), CODE, { only: true });
  });

  test('U+FEFF is not white space to Python: a name of only U+FEFF is not blank (it is an invalid-tool-name)', () => {
    expectNone(config(tool({ name: '"\\ufeff"' })), CODE);
    expectProblems(config(tool({ name: '⟦"\\ufeff"⟧' })), 'invalid-tool-name', { only: true });
  });

  test('a blank node_name is a blank node, named by the key as written', () => {
    expectProblems(config(tool({ node: undefined, node_name: '⟦" "⟧' })), CODE, { only: true, messages: ['"node_name"', 'white space'] });
    expectProblems(config(tool({ node: undefined, node_name: '⟦""⟧' })), CODE, { only: true, messages: ['"node_name"', 'empty'] });
  });

  test('a blank name is not also an invalid-tool-name, and two blank names are not a duplicate-name', () => {
    expectProblems(config(tool({ name: '⟦""⟧' }), tool({ name: '⟦"  "⟧' })), CODE, { only: true });
  });

  test('a blank node is not also node-not-found or node-not-tool-node', () => {
    const g = graph([node('TOOL'), node('agent', 'model_node')], { origin: 'loaded' });
    expectProblems(config(tool({ node: '⟦""⟧' }), tool({ node: '⟦" "⟧', name: '"other"' })), CODE, { only: true, graph: g });
  });

  test('a blank name is not judged by tool-not-attached or name-conflicts-with-server-tool', () => {
    const g = graph([node('TOOL', 'tool_node', [[' ', 'local']])]);
    expectProblems(config(tool({ name: '⟦" "⟧' })), CODE, { only: true, graph: g });
  });

  test('a blank description is not also vague-description', () => {
    expectProblems(config(tool({ description: '⟦""⟧' })), CODE, { only: true });
  });

  test('a value with white space around text is not blank (it is untrimmed-field)', () => {
    expectNone(config(tool({ name: '" read_clipboard "' })), CODE);
  });

  test('a repeated field is judged by its last value', () => {
    expectNone(config(tool({ name: '"", "name": "read_clipboard"' })), CODE);
    expectProblems(config(tool({ name: '"read_clipboard", "name": ⟦""⟧' })), CODE);
  });
});
