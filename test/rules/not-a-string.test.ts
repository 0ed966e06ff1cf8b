// not-a-string: node, name and description, when present, are strings; such a field is
// judged by no other rule.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { config, expectNone, expectProblems, graph, node, tool } from './helpers';

const CODE = 'not-a-string';

describe('not-a-string', () => {
  for (const field of ['node', 'name', 'description'] as const) {
    for (const [what, value] of [
      ['a number', '5'],
      ['null', 'null'],
      ['a boolean', 'true'],
      ['an array', '["x"]'],
      ['an object', '{"x": 1}'],
    ] as const) {
      test(`"${field}" that is ${what} is an error on the value`, () => {
        const label = field === 'name' ? 'remote_tools[0]' : "tool 'read_clipboard'";
        const { problems } = expectProblems(config(tool({ [field]: `⟦${value}⟧` })), CODE, { only: true, messages: [`"${field}"`, label, what, 'string'] });
        assert.equal(problems[0].fixes, undefined);
      });
    }
  }

  test('a name that is not a string is not judged by invalid-tool-name, duplicate-name or the graph rules', () => {
    const g = graph([node('TOOL', 'tool_node', [['5', 'local']])]);
    expectProblems(config(tool({ name: '⟦5⟧' }), tool({ name: '⟦5⟧' })), CODE, { only: true, graph: g });
  });

  test('a node that is not a string is not judged against the graph', () => {
    expectProblems(config(tool({ node: '⟦["TOOL"]⟧' })), CODE, { only: true, graph: graph([node('agent', 'model_node')]) });
  });

  test('a description that is not a string is not vague-description', () => {
    expectProblems(config(tool({ description: '⟦1⟧' })), CODE, { only: true });
  });

  test('a repeated field is judged by its last value', () => {
    expectNone(config(tool({ name: '5, "name": "read_clipboard"' })), CODE);
    expectProblems(config(tool({ name: '"read_clipboard", "name": ⟦5⟧' })), CODE);
  });

  test('strings, even odd ones, are not not-a-string', () => {
    expectNone(config(tool({ name: '"5"', node: '"null"' })), CODE);
  });
});
