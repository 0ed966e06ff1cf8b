import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drawAnswer, loadingDrawing } from '../../client/src/graphView/drawing';
import type { GraphViewResult } from '../../common/protocol';
import type { Graph } from '10xgraph/rules';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const URL = 'http://127.0.0.1:8000';
const GRAPH: Graph = {
  origin: 'live',
  toolsKnown: true,
  fetchedAt: NOW - 5_000,
  version: '0.1.0',
  nodes: [
    { name: 'agent', kind: 'model_node' },
    { name: 'TOOL', kind: 'tool_node', tools: [{ name: 'read_clipboard', source: 'remote' }] },
  ],
  edges: [{ source: 'agent', target: 'TOOL' }],
};

test('connected: the nodes, the age and version of the graph, the file tools the server lacks', () => {
  const answer: GraphViewResult = {
    status: { url: URL, state: 'connected', nodeCount: 2, fetchedAt: GRAPH.fetchedAt },
    graph: GRAPH,
    tools: [
      { node: 'TOOL', name: 'read_clipboard', attached: true },
      { node: 'TOOL', name: 'get_<time>', attached: false },
    ],
  };
  const drawing = drawAnswer(answer, 'app/10xgraph.json', NOW);
  assert.equal(drawing.view.state, 'connected');
  assert.equal(drawing.view.url, URL);
  assert.deepEqual(drawing.view.nodes, ['agent', 'TOOL']);
  assert.deepEqual(
    drawing.view.unattached.map((t) => t.name),
    ['get_<time>'],
  );
  assert.match(drawing.header, /Live graph of <code>http:\/\/127\.0\.0\.1:8000<\/code>: 2 nodes, 1 edges, fetched 5 s ago \(10xgraph 0\.1\.0\)\./);
  assert.match(drawing.header, /Tools of <code>app\/10xgraph\.json<\/code> the server has not attached: <code>TOOL \/ get_&lt;time&gt;<\/code>/);
  assert.ok(!drawing.header.includes('<time>'), 'names are escaped');
  assert.match(drawing.svg, /data-node="TOOL"/);
});

test('offline with the last good graph: drawn, with the server status sentence', () => {
  const error = 'graph: offline — node names checked against the graph fetched 12 s ago (nothing is listening at http://127.0.0.1:8000)';
  const drawing = drawAnswer({ status: { url: URL, state: 'offline', stale: true, error }, graph: { ...GRAPH, stale: true }, tools: [] }, '10xgraph.json', NOW);
  assert.equal(drawing.view.state, 'offline');
  assert.equal(drawing.view.message, error);
  assert.deepEqual(drawing.view.nodes, ['agent', 'TOOL']);
  assert.match(drawing.header, /class="state offline"><code>http:\/\/127\.0\.0\.1:8000<\/code>: graph: offline — node names checked/);
  assert.match(drawing.header, /Tools of <code>10xgraph\.json<\/code>: all attached\./);
  assert.notEqual(drawing.svg, '');
});

test('disabled or untrusted: no graph, no picture, no claim about the file tools', () => {
  for (const state of ['disabled', 'untrusted'] as const) {
    const drawing = drawAnswer({ status: { url: URL, state, error: `graph: ${state}` }, tools: [{ node: 'TOOL', name: 'x' }] }, '10xgraph.json', NOW);
    assert.equal(drawing.view.state, state);
    assert.deepEqual(drawing.view.nodes, []);
    assert.equal(drawing.svg, '');
    assert.match(
      drawing.header,
      new RegExp(
        `class="state ${state}">${state === 'untrusted' ? 'This workspace is not trusted, so no server is contacted' : 'Live graph checks are off \\(10xgraph\\.server\\.enabled is false\\); turn the setting on'}`,
      ),
    );
    assert.ok(!drawing.header.includes('Tools of'), 'without a graph nothing is said of the tools');
  }
});

test('the language server not running, or failing to answer, is said as such', () => {
  const stopped = drawAnswer(undefined, undefined, NOW);
  assert.equal(stopped.view.state, 'stopped');
  assert.match(stopped.header, /not running.*Restart Language Server/);
  const failed = drawAnswer(null, undefined, NOW);
  assert.equal(failed.view.state, 'stopped');
  assert.match(failed.header, /could not answer; the 10xgraph output says why/);
  assert.equal(loadingDrawing().view.state, 'loading');
});
