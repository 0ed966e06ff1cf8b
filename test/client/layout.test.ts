import { test } from 'node:test';
import assert from 'node:assert/strict';
import { layoutGraph, renderSvg } from '../../client/src/graphView/layout';
import { declaredTools, type Graph } from '10xgraph/rules';

const GRAPH: Graph = {
  origin: 'live',
  toolsKnown: true,
  nodes: [
    { name: 'agent', kind: 'model_node' },
    {
      name: 'TOOL',
      kind: 'tool_node',
      tools: [
        { name: 'get_time', source: 'local' },
        { name: 'read_clipboard', source: 'remote' },
      ],
    },
  ],
  edges: [
    { source: 'agent', target: 'TOOL' },
    { source: 'TOOL', target: 'agent' },
  ],
};

const FILE = JSON.stringify({
  agent: 'graph:app',
  remote_tools: [
    { node: 'TOOL', name: 'read_clipboard', description: 'Read the clipboard text.' },
    { node: 'TOOL', name: 'get_user_location', description: 'Get the location of the user.' },
  ],
});

test('every node gets a box, the back edge of the cycle is drawn on the side, boxes do not overlap', () => {
  const layout = layoutGraph(GRAPH, declaredTools(FILE, { graph: GRAPH }));
  assert.deepEqual(layout.nodes.map((n) => n.name).sort(), ['TOOL', 'agent']);
  assert.equal(layout.edges.length, 2);
  assert.equal(layout.edges.filter((e) => e.back).length, 1);
  const [a, b] = layout.nodes;
  const apart = a.y + a.height <= b.y || b.y + b.height <= a.y || a.x + a.width <= b.x || b.x + b.width <= a.x;
  assert.ok(apart, 'boxes overlap');
});

test('the file tools the server has not attached are the ones the rule set says so of', () => {
  const layout = layoutGraph(GRAPH, declaredTools(FILE, { graph: GRAPH }));
  assert.deepEqual(
    layout.unattached.map((t) => t.name),
    ['get_user_location'],
  );
  const tool = layout.nodes.find((n) => n.name === 'TOOL')!;
  assert.deepEqual(
    tool.tools.map((t) => [t.name, t.status, t.inFile]),
    [
      ['get_time', 'local', false],
      ['read_clipboard', 'remote', true],
      ['get_user_location', 'missing', true],
    ],
  );
});

test('the SVG escapes names and is the same for the same input', () => {
  const graph: Graph = { origin: 'live', toolsKnown: true, nodes: [{ name: '<script>', kind: 'function_node' }] };
  const svg = renderSvg(layoutGraph(graph));
  assert.doesNotMatch(svg, /<script>/);
  assert.match(svg, /&lt;script&gt;/);
  assert.equal(renderSvg(layoutGraph(graph)), svg);
});
