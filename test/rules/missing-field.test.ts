// missing-field: node, name and description are required; the problem covers the tool's
// `{`, and the fix adds the field (node: the live graph's only ToolNode when there is one).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GOOD_DESCRIPTION, checkFix, config, expectClean, expectNone, expectProblems, graph, node, tool } from './helpers';

const CODE = 'missing-field';
const D = JSON.stringify(GOOD_DESCRIPTION);

describe('missing-field', () => {
  for (const field of ['node', 'name', 'description'] as const) {
    test(`a tool without "${field}": an error on its \`{\` naming the field, with a fix that adds it`, () => {
      const marked = config(tool({ [field]: undefined }).replace('{', '⟦{⟧'));
      const label = field === 'name' ? 'remote_tools[0]' : "tool 'read_clipboard'";
      const { text, problems } = expectProblems(marked, CODE, { only: true, messages: [`"${field}"`, label] });
      assert.equal(problems[0].fixes!.length, 1);
      const fixed = checkFix(text, problems[0]);
      assert.equal(typeof JSON.parse(fixed).remote_tools[0][field], 'string');
    });
  }

  test('an empty tool: one problem per missing field, all on its `{`', () => {
    const { text, problems } = expectProblems(config('⟦⟦⟦{⟧⟧⟧}'), CODE, { only: true, messages: ['remote_tools[0]'] });
    assert.deepEqual(problems.map((p) => /"(\w+)"/.exec(p.message)![1]).sort(), ['description', 'name', 'node']);
    for (const p of problems) checkFix(text, p);
    const nodeFix = problems.find((p) => p.message.includes('"node"'))!;
    assert.equal(checkFix(text, nodeFix), config('{ "node": "TOOL" }'));
  });

  test("the node fix names the graph's only ToolNode", () => {
    const g = graph([node('agent', 'model_node'), node('clipboard_tools')]);
    const { text, problems } = expectProblems(config(`⟦{⟧"name": "read_clipboard", "description": ${D}}`), CODE, { graph: g });
    assert.match(problems[0].fixes![0].title, /clipboard_tools/);
    const fixed = checkFix(text, problems[0], 0, { graph: g });
    assert.equal(JSON.parse(fixed).remote_tools[0].node, 'clipboard_tools');
    expectClean(fixed, { graph: { ...g, toolsKnown: false } });
  });

  test('with several ToolNodes, or none, the node fix is a placeholder', () => {
    for (const g of [graph([node('a'), node('b')]), graph([node('agent', 'model_node')])]) {
      const { text, problems } = expectProblems(config(`⟦{⟧"name": "read_clipboard", "description": ${D}}`), CODE, { graph: g });
      assert.equal(JSON.parse(checkFix(text, problems[0], 0, { graph: g })).remote_tools[0].node, 'TOOL');
    }
  });

  test('the name placeholder is not a name already in use', () => {
    const { text, problems } = expectProblems(config(tool({ name: '"tool_1"' }), `⟦{⟧"node": "TOOL", "description": ${D}}`), CODE);
    const fixed = checkFix(text, problems[0]);
    const names = JSON.parse(fixed).remote_tools.map((t: { name: string }) => t.name);
    assert.equal(new Set(names).size, 2);
    expectClean(fixed);
  });

  test('in a multi-line tool the field is added on its own line with the same indentation', () => {
    const marked = `{\n  "agent": "graph:app",\n  "remote_tools": [\n    ⟦{⟧\n      "node": "TOOL",\n      "name": "read_clipboard"\n    }\n  ]\n}\n`;
    const { text, problems } = expectProblems(marked, CODE, { only: true });
    assert.equal(
      checkFix(text, problems[0]),
      `{\n  "agent": "graph:app",\n  "remote_tools": [\n    {\n      "node": "TOOL",\n      "name": "read_clipboard",\n      "description": "Describe what this tool does and when to call it."\n    }\n  ]\n}\n`,
    );
  });

  test('"node_name", the other name of "node", is not a missing node', () => {
    expectNone(config(tool({ node: undefined, node_name: '"TOOL"' })), CODE);
    expectNone(config(tool({ node: undefined, node_name: '""' })), CODE);
  });

  test('a field that is present but wrong is not missing', () => {
    expectNone(config(tool({ name: '5', node: 'null', description: '""' })), CODE);
  });

  test('a field present only under another key, or inside parameters, is still missing', () => {
    expectProblems(config(`⟦{⟧"node": "TOOL", "description": ${D}, "parameters": {"type": "object", "name": "x"}}`), CODE);
  });
});
