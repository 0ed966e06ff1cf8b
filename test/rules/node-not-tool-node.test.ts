// node-not-tool-node: with the graph known, `node` names a ToolNode (the only kind that
// carries tools); the fixes replace it with each ToolNode name.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFix, config, expectClean, expectNone, expectProblems, graph, node, tool } from './helpers';

const CODE = 'node-not-tool-node';
const nodes = [node('agent', 'model_node'), node('prepare', 'function_node'), node('tools'), node('agent_tools')];

describe('node-not-tool-node', () => {
  for (const origin of ['loaded', 'live'] as const) {
    test(`a model node (${origin} graph) is an error on the value, naming the node, its kind and the ToolNodes`, () => {
      const g = graph(nodes, { origin });
      const { text, problems } = expectProblems(config(tool({ node: '⟦"agent"⟧' })), CODE, {
        only: true,
        graph: g,
        messages: ["'agent'", 'a model node', "tool 'read_clipboard'", "'tools'", "'agent_tools'"],
      });
      const fixes = problems[0].fixes!;
      assert.deepEqual(fixes.map((f) => f.edits[0].newText).sort(), ['"agent_tools"', '"tools"']);
      assert.equal(fixes[0].isPreferred, true);
      assert.ok(fixes.every((f) => f.command === undefined));
      const fixed = checkFix(text, problems[0], 0, { graph: g });
      expectClean(fixed, { graph: graph(nodes, { origin, toolsKnown: false }) });
    });
  }

  test('a function node is an error that says so', () => {
    expectProblems(config(tool({ node: '⟦"prepare"⟧' })), CODE, { only: true, graph: graph(nodes), messages: ['a function node'] });
  });

  test('a graph with no ToolNode: the message says so and no replacement is offered', () => {
    const { problems } = expectProblems(config(tool({ node: '⟦"agent"⟧' })), CODE, { graph: graph([node('agent', 'model_node')]), messages: ['no ToolNode'] });
    assert.equal(problems[0].fixes, undefined);
  });

  test('a ToolNode, or a node of unknown kind (an older server), is fine', () => {
    expectNone(config(tool({ node: '"tools"' })), CODE, { graph: graph(nodes) });
    expectNone(config(tool({ node: '"legacy"' })), CODE, { graph: graph([node('legacy', 'unknown')]) });
  });

  test('a node the graph lacks is node-not-found, not this rule', () => {
    expectNone(config(tool({ node: '"nowhere"' })), CODE, { graph: graph(nodes) });
  });

  test('without a graph the rule is skipped', () => {
    expectNone(config(tool({ node: '"agent"' })), CODE);
  });

  test('a blank node is not looked up', () => {
    expectNone(config(tool({ node: '" "' })), CODE, { graph: graph([node(' ', 'model_node')]) });
  });
});
