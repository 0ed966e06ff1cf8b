import { test } from 'node:test';
import assert from 'node:assert/strict';
import { declaredTools, type Graph } from '../../runtime/src/rules/index';

const LIVE: Graph = {
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
};

const TEXT = JSON.stringify({
  agent: 'graph:app',
  remote_tools: [
    { node: 'TOOL', name: 'read_clipboard', description: 'Read the clipboard text.' },
    { node: 'TOOL', name: 'get_user_location', description: 'Get the location of the user.' },
    { node: 'TOOLS', name: 'search', description: 'Search the local notes.' },
    { node: 'agent', name: 'pick', description: 'Pick a file from disk.' },
    { node: 'TOOL', name: 'get_time', description: 'Get the time on the device.' },
    { node: '', name: 'blank_node', description: 'A tool with a blank node.' },
  ],
});

test('declared tools carry the graph rules verdict: attached only when no graph rule reports them', () => {
  assert.deepEqual(declaredTools(TEXT, { graph: LIVE }), [
    { node: 'TOOL', name: 'read_clipboard', attached: true },
    { node: 'TOOL', name: 'get_user_location', attached: false },
    { node: 'TOOLS', name: 'search', attached: false },
    { node: 'agent', name: 'pick', attached: false },
    { node: 'TOOL', name: 'get_time', attached: false },
  ]);
});

test('without a graph there is no verdict; a text that is not JSON has no declared tools', () => {
  assert.deepEqual(
    declaredTools(TEXT)?.map((t) => Object.keys(t)),
    Array(5).fill(['node', 'name']),
  );
  assert.equal(declaredTools('{"agent": "graph:app", '), undefined);
  assert.deepEqual(declaredTools('[]'), []);
});

test('a repeated key is judged by its last value', () => {
  assert.deepEqual(declaredTools('{"remote_tools": [{"node": "A", "node": "TOOL", "name": "x", "description": "Do the thing now."}]}'), [{ node: 'TOOL', name: 'x' }]);
});
