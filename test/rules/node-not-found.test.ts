// node-not-found: with the graph known, `node` names a node of it. The fixes replace it with
// each ToolNode name, the closest first; on a live graph "Refetch the graph" is offered too.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFix, config, expectClean, expectNone, expectProblems, graph, node, tool } from './helpers';

const CODE = 'node-not-found';
const nodes = [node('agent', 'model_node'), node('prepare', 'function_node'), node('clipboard_tools'), node('tools')];

describe('node-not-found', () => {
  test('a node the loaded graph lacks is an error on the value, naming it, the tool and the ToolNodes', () => {
    const g = graph(nodes, { origin: 'loaded' });
    const { text, problems } = expectProblems(config(tool({ node: '⟦"tool"⟧' })), CODE, {
      only: true,
      graph: g,
      messages: ["'tool'", "tool 'read_clipboard'", "'clipboard_tools'", "'tools'"],
    });
    const fixes = problems[0].fixes!;
    assert.deepEqual(
      fixes.map((f) => f.edits[0]?.newText),
      ['"tools"', '"clipboard_tools"'],
      'ToolNodes only, the closest first',
    );
    assert.deepEqual(
      fixes.map((f) => f.isPreferred),
      [true, false],
    );
    assert.ok(
      fixes.every((f) => f.command === undefined),
      'no refetch on a loaded graph',
    );
    const fixed = checkFix(text, problems[0], 0, { graph: g });
    assert.equal(fixed, config(tool({ node: '"tools"' })));
    expectClean(fixed, { graph: g });
    expectClean(checkFix(text, problems[0], 1, { graph: g }), { graph: g });
  });

  test('on a live graph the last fix refetches the graph and edits nothing', () => {
    const g = graph(nodes, { origin: 'live', stale: true, fetchedAt: Date.now() - 60_000 });
    const { problems } = expectProblems(config(tool({ node: '⟦"clipbord_tools"⟧' })), CODE, { only: true, graph: g });
    const fixes = problems[0].fixes!;
    assert.equal(fixes[0].edits[0].newText, '"clipboard_tools"');
    const last = fixes[fixes.length - 1];
    assert.equal(last.command, 'refetch-graph');
    assert.deepEqual(last.edits, []);
    assert.notEqual(last.safe, true);
    assert.equal(fixes.filter((f) => f.command).length, 1);
  });

  test('a graph with no ToolNode: the message says so; a live graph still offers the refetch', () => {
    const g = graph([node('agent', 'model_node')], { origin: 'live' });
    const { problems } = expectProblems(config(tool({ node: '⟦"TOOL"⟧' })), CODE, { only: true, graph: g, messages: ['no ToolNode'] });
    assert.deepEqual(
      problems[0].fixes!.map((f) => f.command),
      ['refetch-graph'],
    );
    const loaded = expectProblems(config(tool({ node: '⟦"TOOL"⟧' })), CODE, { graph: graph([], { origin: 'loaded' }) });
    assert.equal(loaded.problems[0].fixes, undefined);
  });

  test('each tool is judged on its own, named by its index when it has no name', () => {
    const g = graph(nodes, { origin: 'loaded' });
    const { problems } = expectProblems(config(tool({ node: '⟦"a"⟧' }), tool({ name: undefined, node: '⟦"b"⟧' })), CODE, { graph: g });
    assert.match(problems[1].message, /remote_tools\[1\]/);
  });

  test('without a graph the rule is skipped', () => {
    expectNone(config(tool({ node: '"nowhere"' })), CODE);
  });

  test('a node the graph has is fine, whatever its kind (node-not-tool-node judges the kind)', () => {
    const g = graph(nodes);
    expectNone(config(tool({ node: '"tools"' })), CODE, { graph: g });
    expectNone(config(tool({ node: '"agent"' })), CODE, { graph: g });
  });

  test('node names are matched exactly', () => {
    expectProblems(config(tool({ node: '⟦"Tools"⟧' })), CODE, { graph: graph(nodes) });
  });

  test('a blank or non-string node is not looked up', () => {
    expectNone(config(tool({ node: '""' })), CODE, { graph: graph(nodes) });
    expectNone(config(tool({ node: '1' })), CODE, { graph: graph(nodes) });
  });

  test('a repeated node key is judged by its last value', () => {
    expectNone(config(tool({ node: '"nowhere", "node": "tools"' })), CODE, { graph: graph(nodes) });
    expectProblems(config(tool({ node: '"tools", "node": ⟦"nowhere"⟧' })), CODE, { graph: graph(nodes) });
  });
});
