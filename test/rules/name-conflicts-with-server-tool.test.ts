// name-conflicts-with-server-tool: with the graph's tools known, a remote tool does not take
// the name of a server tool (source local) of its node.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { config, expectNone, expectProblems, graph, node, tool } from './helpers';

const CODE = 'name-conflicts-with-server-tool';
const tools = (...list: Array<[string, 'local' | 'remote']>) =>
  graph([node('agent', 'model_node'), node('TOOL', 'tool_node', list), node('OTHER', 'tool_node', [['search', 'local']])]);

describe('name-conflicts-with-server-tool', () => {
  for (const origin of ['loaded', 'live'] as const) {
    test(`a name its node already has as a server tool (${origin} graph) is an error on the name value`, () => {
      const g = { ...tools(['read_clipboard', 'local'], ['search', 'local']), origin };
      const { problems } = expectProblems(config(tool({ name: '⟦"read_clipboard"⟧' })), CODE, { only: true, graph: g, messages: ["'TOOL'", "'read_clipboard'", 'Rename'] });
      assert.equal(problems[0].fixes, undefined);
    });
  }

  test('each conflicting tool is reported', () => {
    const g = tools(['a', 'local'], ['b', 'local']);
    expectProblems(config(tool({ name: '⟦"a"⟧' }), tool({ name: '⟦"b"⟧' }), tool({ name: '"c"' })), CODE, { graph: g });
  });

  test('only when the tools are known', () => {
    expectNone(config(tool()), CODE, { graph: { ...tools(['read_clipboard', 'local']), toolsKnown: false } });
  });

  test('a remote tool of that name (this very tool, attached) is no conflict', () => {
    expectNone(config(tool()), CODE, { graph: tools(['read_clipboard', 'remote']) });
  });

  test('a server tool of that name on another node is no conflict', () => {
    expectNone(config(tool({ name: '"search"' })), CODE, { graph: tools() });
  });

  test('names are matched exactly', () => {
    expectNone(config(tool({ name: '"Read_Clipboard"' })), CODE, { graph: tools(['read_clipboard', 'local']) });
  });

  test('a node that is not a ToolNode, or not in the graph, is judged by its own rule only', () => {
    expectNone(config(tool({ node: '"agent"' })), CODE, { graph: tools(['read_clipboard', 'local']) });
    expectNone(config(tool({ node: '"nowhere"' })), CODE, { graph: tools(['read_clipboard', 'local']) });
  });

  test('without a graph the rule is skipped', () => {
    expectNone(config(tool()), CODE);
  });
});
