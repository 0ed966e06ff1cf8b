// graph-not-read: information on "agent" when the agent module's source does not describe its graph exactly.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { agentGraphOf, analyzeConfig, auditProjectConfig, configSummaryOf, type AgentGraph, type ProjectFacts } from '../../runtime/src/rules';
import { analyzeSource } from '../../runtime/src/workspace/sourceAnalysis';
import { unmark } from './helpers';

const CODE = 'graph-not-read';
const PROJECT: ProjectFacts = { complete: true, handled: new Set(), computedHandlers: 0, declared: new Set() };

function notRead(marked: string, agent: AgentGraph | undefined) {
  const { text, ranges } = unmark(marked);
  const summary = configSummaryOf(analyzeConfig(text))!;
  return { ranges, problems: auditProjectConfig({ config: summary, project: PROJECT, covered: true, agent }).filter((p) => p.code === CODE) };
}

const CONFIG = '{"agent": ⟦"graph:app"⟧, "remote_tools": []}';

describe('graph-not-read', () => {
  test('a node added under a computed name is information on "agent", with its line', () => {
    const agent = agentGraphOf('/p/graph.ts', analyzeSource("const g = new StateGraph()\n  .addNode('TOOL', new ToolNode([]))\n  .addNode(NAME, f);\n"));
    assert.equal(agent.graph, undefined);
    const { ranges, problems } = notRead(CONFIG, agent);
    assert.deepEqual(
      problems.map((p) => ({ offset: p.offset, length: p.length })),
      ranges,
    );
    assert.equal(problems[0].severity, 'information');
    assert.equal(problems[0].message, 'graph.ts adds a node whose name is not a literal (line 3), so node names are not checked without a running server.');
  });

  test('a source that does not parse is said so', () => {
    const { problems } = notRead(CONFIG, agentGraphOf('graph.ts', analyzeSource("g.addNode('TOOL', new ToolNode([]);\n")));
    assert.match(problems[0].message, /^graph\.ts does not parse \(.*line 1.*\), so node names are not checked/);
  });

  test('a source read exactly gives the graph and no note; one that adds no node is not worth a note', () => {
    const exact = agentGraphOf('graph.ts', analyzeSource("g.addNode('TOOL', new ToolNode([])).addNode('agent', model);\nconst model = new ModelNode(m);"));
    assert.deepEqual(exact.graph?.nodes, [
      { name: 'TOOL', kind: 'tool_node' },
      { name: 'agent', kind: 'model_node' },
    ]);
    assert.deepEqual(notRead(CONFIG, exact).problems, []);
    assert.deepEqual(notRead(CONFIG, agentGraphOf('graph.ts', analyzeSource('export const x = 1;'))).problems, []);
    assert.deepEqual(notRead(CONFIG, undefined).problems, []);
  });
});
