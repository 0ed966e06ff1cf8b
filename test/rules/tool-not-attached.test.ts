// tool-not-attached: information when a live server (tools known) does not list this tool as
// a tool of its node: it was started with another config.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeConfig } from '../../runtime/src/rules';
import { config, expectNone, expectProblems, graph, node, tool, unmark } from './helpers';

const CODE = 'tool-not-attached';
const live = (...list: Array<[string, 'local' | 'remote']>) => graph([node('agent', 'model_node'), node('TOOL', 'tool_node', list)], { origin: 'live' });

describe('tool-not-attached', () => {
  test('a tool the live server does not list on its node is information on the name value', () => {
    const { problems } = expectProblems(config(tool({ name: '⟦"read_clipboard"⟧' })), CODE, {
      only: true,
      graph: live(['other', 'remote']),
      messages: ["'read_clipboard'", "'TOOL'", 'Restart'],
    });
    assert.equal(problems[0].severity, 'information');
  });

  test('a node that lists no tools at all counts as not attached', () => {
    expectProblems(config(tool({ name: '⟦"read_clipboard"⟧' })), CODE, { graph: graph([{ name: 'TOOL', kind: 'tool_node' }]) });
  });

  test('information does not block the config', () => {
    const { text } = unmark(config(tool()));
    const analysis = analyzeConfig(text, { graph: live() });
    assert.deepEqual(
      analysis.problems.map((p) => p.code),
      [CODE],
    );
    assert.ok(analysis.config);
  });

  test('a tool the server lists as attached is fine', () => {
    expectNone(config(tool()), CODE, { graph: live(['read_clipboard', 'remote']) });
  });

  test('only on a live graph whose tools are known', () => {
    expectNone(config(tool()), CODE, { graph: { ...live(), origin: 'loaded' } });
    expectNone(config(tool()), CODE, { graph: { ...live(), toolsKnown: false } });
    expectNone(config(tool()), CODE);
  });

  test('a server tool of that name is name-conflicts-with-server-tool only', () => {
    expectNone(config(tool()), CODE, { graph: live(['read_clipboard', 'local']) });
  });

  test('a node that is missing or not a ToolNode is judged by its own rule only', () => {
    expectProblems(config(tool({ node: '⟦"nowhere"⟧' })), 'node-not-found', { only: true, graph: live() });
    expectProblems(config(tool({ node: '⟦"agent"⟧' })), 'node-not-tool-node', { only: true, graph: live() });
  });

  test('a blank name is blank-field only', () => {
    expectNone(config(tool({ name: '""' })), CODE, { graph: live() });
  });
});
